package io.changestream.alerts.filter;

import com.google.re2j.Pattern;
import java.util.Objects;
import java.util.Set;

/**
 * What the evaluator needs beyond the event. The platform's {@code isBot()} looks the updating user up in its
 * database; changestream has no user table, so a user is a bot when its name is in {@code botUsers} or matches
 * {@code botUserPattern}.
 *
 * @param botUsers       user names that are bots (default {@code ingestion-bot}, {@code governance-bot})
 * @param botUserPattern pattern a bot's user name fully matches (default {@code (?i)(.+[-_])?bot}; RE2/J, linear)
 * @param limits         bounds of the compiler and evaluator
 * @param tags           where {@code matchAnyTag} looks up the tags of a run's pipeline (the wiring's impact
 *                       resolver; {@link EntityTags#NONE} reads the event's entity only)
 */
public record FilterSettings(Set<String> botUsers, Pattern botUserPattern, FilterLimits limits, EntityTags tags) {

    /** The defaults. */
    public static final FilterSettings DEFAULTS = new FilterSettings(
            Set.of("ingestion-bot", "governance-bot"), Pattern.compile("(?i)(.+[-_])?bot"), FilterLimits.DEFAULTS);

    public FilterSettings {
        botUsers = Set.copyOf(Objects.requireNonNull(botUsers, "filter.botUsers is required"));
        Objects.requireNonNull(botUserPattern, "filter.botUserPattern is required");
        Objects.requireNonNull(limits, "filter.limits is required");
        Objects.requireNonNull(tags, "tags");
    }

    /** Without a tag lookup. */
    public FilterSettings(Set<String> botUsers, Pattern botUserPattern, FilterLimits limits) {
        this(botUsers, botUserPattern, limits, EntityTags.NONE);
    }

    /** These settings with other limits. */
    public FilterSettings withLimits(FilterLimits other) {
        return new FilterSettings(botUsers, botUserPattern, other, tags);
    }

    /** These settings with a tag lookup for entities whose events carry no tags. */
    public FilterSettings withTags(EntityTags lookup) {
        return new FilterSettings(botUsers, botUserPattern, limits, lookup);
    }

    boolean isBot(String userName) {
        return botUsers.contains(userName) || botUserPattern.matcher(userName).matches();
    }
}
