package io.changestream.cdc.prereq;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The privileges a MariaDB (or MySQL) account holds, read from the lines of {@code SHOW GRANTS}: global ones
 * ({@code ON *.*}) and {@code SELECT} per database or table. {@code ALL PRIVILEGES} holds every privilege, MariaDB
 * 10.5's {@code BINLOG MONITOR} is {@code REPLICATION CLIENT} and {@code REPLICATION REPLICA} is
 * {@code REPLICATION SLAVE}; a database name in a grant is a {@code LIKE} pattern ({@code \_} a literal underscore).
 * Role grants ({@code GRANT `role` TO …}) and column privileges are not followed. Immutable.
 */
final class MariaDbGrants {

    /** {@code GRANT <privileges> ON <object> TO …}; group 1 the privileges, group 2 the object. */
    private static final Pattern GRANT = Pattern.compile("^GRANT (.+?) ON (?:TABLE )?(\\S+) TO .*$",
            Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    private static final Pattern OBJECT = Pattern.compile("^(`(?:[^`]|``)*`|\\*)\\.(`(?:[^`]|``)*`|\\*)$");

    private record Grant(Set<String> privileges, String database, String table) {
    }

    private final List<Grant> grants;

    private MariaDbGrants(List<Grant> grants) {
        this.grants = grants;
    }

    static MariaDbGrants parse(List<String> showGrantsLines) {
        List<Grant> grants = new ArrayList<>();
        for (String line : showGrantsLines) {
            Matcher m = GRANT.matcher(line.trim());
            if (!m.matches()) {
                continue;
            }
            Matcher object = OBJECT.matcher(m.group(2));
            if (!object.matches()) {
                continue; // PROXY ON ''@'%' and the like
            }
            Set<String> privileges = new HashSet<>();
            for (String privilege : splitOutsideParentheses(m.group(1))) {
                String p = privilege.trim().toUpperCase(Locale.ROOT).replaceAll("\\s+", " ");
                if (p.contains("(")) {
                    continue; // column privilege: not enough for a table
                }
                privileges.add(canonical(p));
            }
            grants.add(new Grant(privileges, unquote(object.group(1)), unquote(object.group(2))));
        }
        return new MariaDbGrants(grants);
    }

    /** True when {@code privilege} is held on {@code *.*}. */
    boolean global(String privilege) {
        String wanted = canonical(privilege);
        return grants.stream().anyMatch(g -> g.database() == null && g.table() == null && holds(g, wanted));
    }

    /** True when {@code privilege} is held on {@code database.table}: globally, on the database, or on the table. */
    boolean on(String privilege, String database, String table) {
        String wanted = canonical(privilege);
        return grants.stream().anyMatch(g -> holds(g, wanted)
                && (g.database() == null || likeMatches(g.database(), database))
                && (g.table() == null || g.table().equals(table)));
    }

    private static boolean holds(Grant g, String privilege) {
        return g.privileges().contains(privilege) || g.privileges().contains("ALL PRIVILEGES")
                || g.privileges().contains("ALL");
    }

    private static String canonical(String privilege) {
        return switch (privilege) {
            case "BINLOG MONITOR" -> "REPLICATION CLIENT";
            case "REPLICATION REPLICA" -> "REPLICATION SLAVE";
            default -> privilege;
        };
    }

    /** {@code `name`} → name ({@code ``} an escaped backtick); {@code *} → null (any). */
    private static String unquote(String part) {
        return "*".equals(part) ? null : part.substring(1, part.length() - 1).replace("``", "`");
    }

    /** MySQL's LIKE on a database name in a grant: {@code %} any run, {@code _} one character, {@code \} escapes. */
    static boolean likeMatches(String pattern, String name) {
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char ch = pattern.charAt(i);
            if (ch == '\\' && i + 1 < pattern.length()) {
                regex.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
            } else if (ch == '%') {
                regex.append(".*");
            } else if (ch == '_') {
                regex.append('.');
            } else {
                regex.append(Pattern.quote(String.valueOf(ch)));
            }
        }
        return name.matches(regex.toString());
    }

    private static List<String> splitOutsideParentheses(String list) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < list.length(); i++) {
            char ch = list.charAt(i);
            if (ch == '(') {
                depth++;
            } else if (ch == ')') {
                depth--;
            } else if (ch == ',' && depth == 0) {
                parts.add(list.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(list.substring(start));
        return parts;
    }
}
