package io.changestream.ops.offsets;

import io.changestream.ops.UsageException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Kafka's reset-plan CSV, as {@code kafka-consumer-groups --reset-offsets --export} writes it and
 * {@code --from-file} reads it: no header, one partition a line, {@code topic,partition,offset} when one group is
 * reset and {@code group,topic,partition,offset} for several ({@code --all-groups}). A text field is quoted (quotes
 * inside doubled) exactly when the tool's Jackson CSV writer quotes it: longer than 24 characters, or holding a
 * character below {@code '-'} (space, comma, quote, control characters…) — so {@code cs.changes} stays bare and a
 * 36-character group id is quoted.
 */
public final class ResetPlanCsv {

    private ResetPlanCsv() {
    }

    /**
     * Kafka's {@code --export} of these plans.
     *
     * @param withGroup true for the four-column form (the tool uses it unless exactly one {@code --group} is given)
     */
    public static String export(List<ResetPlan> plans, boolean withGroup) {
        StringBuilder out = new StringBuilder();
        for (ResetPlan plan : plans) {
            for (PartitionPlan row : plan.rows()) {
                if (withGroup) {
                    out.append(field(plan.group())).append(',');
                }
                out.append(field(row.partition().topic())).append(',').append(row.partition().partition())
                        .append(',').append(row.newOffset()).append('\n');
            }
        }
        return out.toString();
    }

    /**
     * Parses a plan. Three-column lines belong to {@code singleGroup} (as in the tool, only when one group is given);
     * four-column lines name their group.
     *
     * @param singleGroup the {@code --group}, or null with {@code --all-groups}
     * @return per group, the requested offset of each partition, in file order
     * @throws UsageException naming the line of a malformed row
     */
    public static Map<String, Map<TopicPartition, Long>> parse(String csv, String singleGroup) {
        Map<String, Map<TopicPartition, Long>> out = new LinkedHashMap<>();
        String[] lines = csv.split("\r?\n");
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].isBlank()) {
                continue;
            }
            List<String> f = split(lines[i], i + 1);
            String group;
            int t;
            if (f.size() == 3 && singleGroup != null) {
                group = singleGroup;
                t = 0;
            } else if (f.size() == 4) {
                group = f.get(0);
                t = 1;
            } else {
                throw new UsageException("--from-file line " + (i + 1) + ": expected "
                        + (singleGroup != null ? "topic,partition,offset or " : "") + "group,topic,partition,offset"
                        + ", got " + f.size() + " field(s)");
            }
            int partition = number(f.get(t + 1), "partition", i + 1, Integer.MAX_VALUE);
            long offset = number(f.get(t + 2), "offset", i + 1, Long.MAX_VALUE);
            if (f.get(t).isBlank() || group.isBlank()) {
                throw new UsageException("--from-file line " + (i + 1) + ": empty topic or group");
            }
            out.computeIfAbsent(group, g -> new LinkedHashMap<>()).put(new TopicPartition(f.get(t), partition), offset);
        }
        if (out.isEmpty()) {
            throw new UsageException("--from-file holds no plan lines");
        }
        return out;
    }

    private static int number(String value, String what, int line, int max) {
        return (int) number(value, what, line, (long) max);
    }

    private static long number(String value, String what, int line, long max) {
        try {
            long n = Long.parseLong(value.trim());
            if (n < 0 || n > max) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException("--from-file line " + line + ": " + what + " '" + value
                    + "' is not a non-negative number");
        }
    }

    /** Jackson CSV's loose check ({@code CsvEncoder._mayNeedQuotes}) does not look into strings over 24 chars. */
    private static final int MAX_QUOTE_CHECK = 24;

    static String field(String value) {
        boolean quote = value.length() > MAX_QUOTE_CHECK;
        for (int i = 0; i < value.length() && !quote; i++) {
            quote = value.charAt(i) < '-';
        }
        return quote ? '"' + value.replace("\"", "\"\"") + '"' : value;
    }

    private static List<String> split(String line, int lineNo) {
        List<String> fields = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    cur.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    cur.append(c);
                }
            } else if (c == '"' && cur.length() == 0) {
                quoted = true;
            } else if (c == ',') {
                fields.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        if (quoted) {
            throw new UsageException("--from-file line " + lineNo + ": unterminated quote");
        }
        fields.add(cur.toString());
        return fields;
    }
}
