package io.changestream.alerts.digest;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.ScheduleInfo;
import io.changestream.topics.model.TriggerConfig;
import io.changestream.topics.model.TriggerType;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a subscription collects instead of sending each event: a Scheduled trigger (one digest per schedule tick) or
 * a {@value #GROUPING_FIELD} object (one message per group, Alertmanager's timing), or both (one digest per group per
 * tick). Immutable; {@link #of} validates and names the field that is wrong.
 *
 * <p>Schedules are the platform's ({@code SubscriptionUtil.getCronSchedule}, Quartz): Daily = every day at 00:00,
 * Weekly = Saturdays at 00:00 (Quartz day 7), Monthly = the 1st at 00:00, Custom = {@code cronExpression} (Quartz
 * format, 6 or 7 fields, parsed with cron-utils), in {@code digest.zone}. As on the platform, {@code cronExpression}
 * is read only with Custom.
 *
 * <p>{@code grouping}: {@code groupBy} — a list of {@code entityType}, {@code eventType}, {@code owner} (the entity's
 * owner names, sorted) and {@code entityFqnPrefix:<n>} (the first n dot-separated parts of the FQN, 1..10); absent or
 * empty = one group per subscription. {@code groupWait}, {@code groupInterval}, {@code repeatInterval}: durations as
 * Alertmanager writes them ({@code 30s}, {@code 5m}, {@code 1h30m}) or ISO-8601, at most {@value #MAX_WAIT_DAYS}
 * days; they apply to real-time subscriptions only.
 */
public final class DigestPolicy {

    /** The subscription field (changestream's extension) holding the grouping. */
    public static final String GROUPING_FIELD = "grouping";
    /** Longest group value; longer ones are cut. */
    public static final int MAX_GROUP_CHARS = 256;
    /** Longest groupWait / groupInterval / repeatInterval, days. */
    public static final int MAX_WAIT_DAYS = 7;

    private static final CronParser QUARTZ = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(
            CronType.QUARTZ));
    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)");
    private static final Pattern PREFIX = Pattern.compile("entityFqnPrefix:(\\d+)");
    private static final Set<String> GROUPING_KEYS = Set.of("groupBy", "groupWait", "groupInterval",
            "repeatInterval");

    private final ExecutionTime schedule;
    private final String scheduleText;
    private final List<String> groupBy;
    private final Duration groupWait;
    private final Duration groupInterval;
    private final Duration repeatInterval;
    private final ZoneId zone;

    private DigestPolicy(ExecutionTime schedule, String scheduleText, List<String> groupBy, Duration groupWait,
                         Duration groupInterval, Duration repeatInterval, ZoneId zone) {
        this.schedule = schedule;
        this.scheduleText = scheduleText;
        this.groupBy = List.copyOf(groupBy);
        this.groupWait = groupWait;
        this.groupInterval = groupInterval;
        this.repeatInterval = repeatInterval;
        this.zone = zone;
    }

    /**
     * The policy of a subscription, empty when it is delivered event by event (RealTime without grouping).
     *
     * @throws DigestConfigException naming the field when the trigger or grouping cannot be used
     */
    public static Optional<DigestPolicy> of(EventSubscription subscription, DigestSettings settings) {
        TriggerConfig trigger = subscription.trigger();
        JsonNode grouping = subscription.additionalProperties().get(GROUPING_FIELD);
        boolean scheduled = trigger.triggerType() == TriggerType.SCHEDULED;
        if (!scheduled && (grouping == null || grouping.isNull())) {
            return Optional.empty();
        }
        ExecutionTime schedule = null;
        String text = null;
        if (scheduled) {
            text = cronOf(trigger);
            try {
                Cron cron = QUARTZ.parse(text);
                cron.validate();
                schedule = ExecutionTime.forCron(cron);
            } catch (IllegalArgumentException e) {
                throw new DigestConfigException("trigger.cronExpression", "not a Quartz cron expression ("
                        + e.getMessage() + ")");
            }
        }
        List<String> groupBy = List.of();
        Duration wait = settings.groupWait();
        Duration interval = settings.groupInterval();
        Duration repeat = settings.repeatInterval();
        if (grouping != null && !grouping.isNull()) {
            if (!grouping.isObject()) {
                throw new DigestConfigException(GROUPING_FIELD, "must be an object with groupBy, groupWait, "
                        + "groupInterval, repeatInterval");
            }
            var names = grouping.fieldNames();
            while (names.hasNext()) {
                String name = names.next();
                if (!GROUPING_KEYS.contains(name)) {
                    throw new DigestConfigException(GROUPING_FIELD + "." + name, "unknown field (known: "
                            + new TreeSet<>(GROUPING_KEYS) + ")");
                }
                if (scheduled && !"groupBy".equals(name)) {
                    throw new DigestConfigException(GROUPING_FIELD + "." + name, "not used with a Scheduled "
                            + "trigger (its schedule decides when the digest of each group goes out)");
                }
            }
            groupBy = groupBy(grouping.get("groupBy"));
            wait = duration(grouping.get("groupWait"), "groupWait", wait);
            interval = duration(grouping.get("groupInterval"), "groupInterval", interval);
            repeat = duration(grouping.get("repeatInterval"), "repeatInterval", repeat);
        }
        return Optional.of(new DigestPolicy(schedule, text, groupBy, wait, interval, repeat, settings.zone()));
    }

    /** The Quartz expression of a Scheduled trigger (the platform's times for Daily/Weekly/Monthly). */
    static String cronOf(TriggerConfig trigger) {
        ScheduleInfo info = trigger.scheduleInfo() == null ? ScheduleInfo.WEEKLY : trigger.scheduleInfo();
        return switch (info) {
            case DAILY -> "0 0 0 * * ?";
            case WEEKLY -> "0 0 0 ? * 7";
            case MONTHLY -> "0 0 0 1 * ?";
            case CUSTOM -> {
                if (trigger.cronExpression() == null || trigger.cronExpression().isBlank()) {
                    throw new DigestConfigException("trigger.cronExpression", "is required with scheduleInfo "
                            + "Custom");
                }
                yield trigger.cronExpression().trim();
            }
        };
    }

    private static List<String> groupBy(JsonNode node) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw new DigestConfigException(GROUPING_FIELD + ".groupBy", "must be an array of entityType, "
                    + "eventType, owner, entityFqnPrefix:<n>");
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            String field = GROUPING_FIELD + ".groupBy[" + i + "]";
            String value = node.get(i).isTextual() ? node.get(i).asText() : null;
            Matcher prefix = value == null ? null : PREFIX.matcher(value);
            boolean known = "entityType".equals(value) || "eventType".equals(value) || "owner".equals(value)
                    || (prefix != null && prefix.matches() && prefix.group(1).length() <= 2
                    && Integer.parseInt(prefix.group(1)) >= 1 && Integer.parseInt(prefix.group(1)) <= 10);
            if (!known) {
                throw new DigestConfigException(field, "must be entityType, eventType, owner or "
                        + "entityFqnPrefix:<1..10>, was " + node.get(i));
            }
            if (out.contains(value)) {
                throw new DigestConfigException(field, "repeats " + value);
            }
            out.add(value);
        }
        return out;
    }

    /** An Alertmanager duration ({@code 30s}, {@code 1h30m}, {@code 0s}) or ISO-8601, 0 to 7 days. */
    static Duration duration(JsonNode node, String name, Duration fallback) {
        String field = GROUPING_FIELD + "." + name;
        if (node == null || node.isNull()) {
            return fallback;
        }
        if (!node.isTextual()) {
            throw new DigestConfigException(field, "must be a duration such as \"30s\", \"5m\", \"4h\" or PT30S");
        }
        String text = node.asText().trim();
        Duration d;
        if (text.startsWith("P") || text.startsWith("p")) {
            try {
                d = Duration.parse(text);
            } catch (DateTimeParseException e) {
                throw new DigestConfigException(field, "not an ISO-8601 duration: " + text);
            }
        } else {
            Matcher m = DURATION.matcher(text);
            d = Duration.ZERO;
            int end = 0;
            while (m.find() && m.start() == end) {
                long n = Long.parseLong(m.group(1).length() > 9 ? "999999999" : m.group(1));
                d = d.plus(switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "h" -> Duration.ofHours(n);
                    default -> Duration.ofDays(n);
                });
                end = m.end();
            }
            if (end == 0 || end != text.length()) {
                throw new DigestConfigException(field, "must be a duration such as \"30s\", \"5m\", \"4h\" or "
                        + "PT30S, was \"" + text + "\"");
            }
        }
        if (d.isNegative() || d.compareTo(Duration.ofDays(MAX_WAIT_DAYS)) > 0) {
            throw new DigestConfigException(field, "must be between 0 and " + MAX_WAIT_DAYS + " days, was " + text);
        }
        return d;
    }

    /** Whether a schedule decides when messages go out (a digest) rather than grouping's timing. */
    public boolean scheduled() {
        return schedule != null;
    }

    /** The schedule's next tick strictly after {@code after}. */
    public Instant nextTick(Instant after) {
        return schedule.nextExecution(after.atZone(zone)).map(t -> t.toInstant())
                .orElse(Instant.MAX);
    }

    /** The Quartz expression of the schedule, or null. */
    public String scheduleText() {
        return scheduleText;
    }

    /** The group value of an event: {@code "entityType=table,owner=alice"}, {@code ""} without groupBy. */
    public String groupOf(ChangeEvent event) {
        if (groupBy.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        for (String by : groupBy) {
            if (out.length() > 0) {
                out.append(',');
            }
            out.append(by.startsWith("entityFqnPrefix") ? "entityFqn" : by).append('=').append(valueOf(by, event));
        }
        return out.length() <= MAX_GROUP_CHARS ? out.toString() : out.substring(0, MAX_GROUP_CHARS);
    }

    private static String valueOf(String by, ChangeEvent event) {
        return switch (by) {
            case "entityType" -> event.entityType();
            case "eventType" -> event.eventType();
            case "owner" -> owners(event);
            default -> {
                int parts = Integer.parseInt(by.substring(by.indexOf(':') + 1));
                String fqn = event.entityFullyQualifiedName() == null ? event.entityId()
                        : event.entityFullyQualifiedName();
                String[] split = fqn.split("\\.", parts + 1);
                yield String.join(".", java.util.Arrays.copyOf(split, Math.min(parts, split.length)));
            }
        };
    }

    private static String owners(ChangeEvent event) {
        JsonNode owners = event.entity() == null ? null : event.entity().get("owners");
        TreeSet<String> names = new TreeSet<>();
        if (owners != null && owners.isArray()) {
            owners.forEach(o -> {
                String name = o.path("name").asText(o.path("displayName").asText(""));
                if (!name.isEmpty()) {
                    names.add(name);
                }
            });
        }
        return names.isEmpty() ? "none" : String.join("+", names);
    }

    /** The wait of a new group before its first message. */
    public Duration groupWait() {
        return groupWait;
    }

    /** The wait after a group's message before the next one. */
    public Duration groupInterval() {
        return groupInterval;
    }

    /** How long a group is remembered after its last message (see the README: no re-sends of changes). */
    public Duration repeatInterval() {
        return repeatInterval;
    }
}
