package io.changestream.alerts.replay;

import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.alerts.subscription.SubscriptionException;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What to replay: the events written to the source topics at or after {@code from} and before {@code to}, delivered
 * to {@code subscriptions} under the new consumer group {@code group}. Read from the admin API's JSON body
 * {@code {"group", "subscriptions": [ids], "from", "to"}} (instants in ISO-8601; {@code to} defaults to now); a bad
 * field is a 400 naming it.
 */
public record ReplayRequest(String group, List<String> subscriptions, Instant from, Instant to) {

    /** A consumer group name a replay may take: what Kafka allows, in a form safe for logs and URLs. */
    private static final Pattern GROUP = Pattern.compile("[A-Za-z0-9._-]{1,200}");
    /** Most subscriptions one replay names. */
    static final int MAX_SUBSCRIPTIONS = 100;

    public ReplayRequest {
        subscriptions = List.copyOf(subscriptions);
    }

    /** The request a JSON body gives; {@code to} is now when absent and may not lie ahead of now. */
    public static ReplayRequest parse(JsonNode body, Clock clock) {
        if (body == null || !body.isObject()) {
            throw SubscriptionException.invalid("body", "must be a JSON object {group, subscriptions, from, to}");
        }
        JsonNode group = body.get("group");
        if (group == null || !group.isTextual() || !GROUP.matcher(group.asText()).matches()) {
            throw SubscriptionException.invalid("group", "is required: the new consumer group's name, 1-200 of "
                    + "A-Z a-z 0-9 . _ -");
        }
        JsonNode ids = body.get("subscriptions");
        if (ids == null || !ids.isArray() || ids.isEmpty() || ids.size() > MAX_SUBSCRIPTIONS) {
            throw SubscriptionException.invalid("subscriptions", "is required: 1 to " + MAX_SUBSCRIPTIONS
                    + " subscription ids");
        }
        Set<String> named = new LinkedHashSet<>();
        for (int i = 0; i < ids.size(); i++) {
            if (!ids.get(i).isTextual() || ids.get(i).asText().isBlank()) {
                throw SubscriptionException.invalid("subscriptions[" + i + "]", "must be a subscription id");
            }
            named.add(ids.get(i).asText());
        }
        Instant now = clock.instant();
        Instant from = instant(body, "from", null);
        Instant to = instant(body, "to", now);
        if (to.isAfter(now)) {
            throw SubscriptionException.invalid("to", "lies ahead of now (" + now + "): a replay covers what was "
                    + "written");
        }
        if (!from.isBefore(to)) {
            throw SubscriptionException.invalid("from", "must be before to (" + to + ")");
        }
        return new ReplayRequest(group.asText(), new ArrayList<>(named), from, to);
    }

    private static Instant instant(JsonNode body, String field, Instant absent) {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) {
            if (absent == null) {
                throw SubscriptionException.invalid(field, "is required: an ISO-8601 instant");
            }
            return absent;
        }
        try {
            return Instant.parse(value.asText());
        } catch (DateTimeParseException e) {
            throw SubscriptionException.invalid(field, "is not an ISO-8601 instant: " + value.asText());
        }
    }
}
