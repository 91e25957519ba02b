package io.changestream.testkit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the settings table of a module README (the table under {@code ## Settings}: key | default | meaning) so a
 * test can hold it against the settings the code declares and fail when the documentation drifts.
 */
public final class ReadmeSettingsTable {

    /** The default cell of a setting without one. */
    public static final String NONE = "—";

    /** How a module's README writes a row's key and default cells (so the rows to paste look like the others). */
    public enum Cells {
        /** {@code | key | default |}. */
        PLAIN,
        /** {@code | `key` | default |}. */
        CODE_KEYS,
        /** {@code | `key` | `default` |}, a missing default as {@value #NONE}. */
        CODE_KEYS_AND_DEFAULTS
    }

    private ReadmeSettingsTable() {
    }

    /**
     * Fails unless the settings table of {@code readme} matches {@code expected} (key → default, see
     * {@link #problems}); the message starts with {@code drifted} (e.g. "x/README.md's settings table has drifted
     * from XConfig"), names the problems and gives a row to paste per expected key, written as {@code cells} says.
     */
    public static void assertMatches(String readme, Map<String, String> expected, Cells cells, String drifted) {
        Map<String, String[]> rows = rows(readme);
        List<String> problems = problems(expected, rows);
        if (problems.isEmpty()) {
            return;
        }
        StringBuilder table = new StringBuilder("| key | default | meaning |\n|---|---|---|\n");
        expected.forEach((key, value) -> table.append("| ").append(cells == Cells.PLAIN ? key : "`" + key + "`")
                .append(" | ").append(cells != Cells.CODE_KEYS_AND_DEFAULTS || value.equals(NONE) ? value
                        : "`" + value + "`")
                .append(" | ").append(rows.containsKey(key) ? rows.get(key)[1] : "").append(" |\n"));
        throw new AssertionError(drifted + ": " + problems + "\nRows to paste (one per key):\n" + table);
    }

    /** Every environment variable name {@code readme} mentions that starts with {@code prefix}, in order. */
    public static List<String> envExamples(String readme, String prefix) {
        List<String> names = new ArrayList<>();
        Matcher m = Pattern.compile(Pattern.quote(prefix) + "[A-Z0-9_]+").matcher(readme);
        while (m.find()) {
            names.add(m.group());
        }
        return names;
    }

    /**
     * Key → {default cell, meaning} of the table under "## Settings"; a row whose key cell is {@code a / b} holds one
     * entry per key, with one default per key ({@code x / y}).
     */
    public static Map<String, String[]> rows(String readme) {
        int start = readme.indexOf("\n## Settings");
        if (start < 0) {
            throw new AssertionError("README.md has no '## Settings' section");
        }
        int end = readme.indexOf("\n## ", start + 1);
        Map<String, String[]> rows = new LinkedHashMap<>();
        for (String line : readme.substring(start, end < 0 ? readme.length() : end).split("\n")) {
            if (!line.startsWith("|") || line.startsWith("|---") || line.startsWith("| key ")) {
                continue;
            }
            String[] cells = line.substring(1).split("\\|", 3);
            String[] keys = clean(cells[0]).split(" / ");
            String[] defaults = clean(cells[1]).split(" / ");
            String meaning = cells.length > 2 ? cells[2].replaceAll("\\|\\s*$", "").trim() : "";
            for (int i = 0; i < keys.length; i++) {
                String value = keys.length == defaults.length ? defaults[i] : "(the row needs one default per key)";
                rows.put(keys[i], new String[] {value, meaning});
            }
        }
        return rows;
    }

    /**
     * What differs between the settings a module's code declares ({@code expected}: key → default) and its README
     * table: keys without a row, rows without a key, and defaults that neither equal the code's nor start with it
     * followed by a note in parentheses. Empty when they match.
     */
    public static List<String> problems(Map<String, String> expected, Map<String, String[]> rows) {
        List<String> problems = new ArrayList<>();
        expected.forEach((key, value) -> {
            String[] row = rows.get(key);
            if (row == null) {
                problems.add("missing: " + key);
            } else if (!row[0].equals(value) && !row[0].startsWith(value + " (")) {
                problems.add(key + ": README shows default '" + row[0] + "', the code uses '" + value + "'");
            }
        });
        rows.keySet().stream().filter(k -> !expected.containsKey(k)).forEach(k -> problems.add("not read: " + k));
        return problems;
    }

    private static String clean(String cell) {
        return cell.replace("`", "").replace("&lt;", "<").replace("&gt;", ">").trim();
    }
}
