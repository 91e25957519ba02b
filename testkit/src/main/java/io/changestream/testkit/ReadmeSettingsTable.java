package io.changestream.testkit;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the settings table of a module README (the table under {@code ## Settings}: key | default | meaning) so a
 * test can hold it against the settings the code declares and fail when the documentation drifts.
 */
public final class ReadmeSettingsTable {

    private ReadmeSettingsTable() {
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
    public static java.util.List<String> problems(Map<String, String> expected, Map<String, String[]> rows) {
        java.util.List<String> problems = new java.util.ArrayList<>();
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
