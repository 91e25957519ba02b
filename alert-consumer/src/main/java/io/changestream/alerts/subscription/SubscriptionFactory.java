package io.changestream.alerts.subscription;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.alerts.destination.DestinationConfigException;
import io.changestream.alerts.destination.DestinationRegistry;
import io.changestream.alerts.destination.Secrets;
import io.changestream.alerts.digest.DigestConfigException;
import io.changestream.alerts.digest.DigestPolicy;
import io.changestream.alerts.digest.DigestSettings;
import io.changestream.alerts.filter.FilterException;
import io.changestream.alerts.filter.FilterInputException;
import io.changestream.alerts.filter.FilterRulesBuilder;
import io.changestream.alerts.filter.FilterSettings;
import io.changestream.alerts.filter.SubscriptionFilter;
import io.changestream.topics.model.AlertFilteringInput;
import io.changestream.topics.model.AlertType;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.FilteringRules;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.TriggerConfig;
import io.changestream.topics.serde.Json;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Turns the platform's CreateEventSubscription request JSON into the stored {@link EventSubscription}, as the
 * platform does: id generated (kept on update), FQN = name, {@code filteringRules} built from {@code resources} and
 * {@code input}, defaults applied (alertType Notification, trigger RealTime, enabled, batchSize 100, retries 3,
 * destination timeout 10 s / readTimeout 12 s, destination ids generated), {@code pollInterval} accepted and kept
 * but not used (nothing polls). Every problem is a 400 naming the field. Request fields it does not model
 * ({@code className}, {@code config}, {@code notificationTemplate}…) are kept verbatim. As an extension a request
 * without {@code input} may carry {@code filteringRules} with hand-written conditions; they are compiled before
 * they are stored. Stateless apart from its collaborators; any thread.
 */
public final class SubscriptionFactory {

    /** Longest name, as the platform's {@code entityName}. */
    public static final int MAX_NAME_LENGTH = 256;

    private static final Set<String> MODELLED = Set.of("id", "name", "fullyQualifiedName", "displayName",
            "description", "alertType", "trigger", "enabled", "filteringRules", "input", "destinations", "batchSize",
            "retries", "pollInterval", "provider", "owners", "domains", "version", "updatedAt", "updatedBy",
            "resources", "href", "changeDescription", "incrementalChangeDescription", "deleted");

    /** Validation of triggers and grouping needs no service setting: the defaults stand in. */
    private static final DigestSettings DIGEST_DEFAULTS = DigestSettings.of("-", "-");

    /** Who holds a destination id now (issue 21: ids are unique across the service). */
    @FunctionalInterface
    public interface DestinationOwners {
        /** Nobody: no other subscription is known. */
        DestinationOwners NONE = destinationId -> null;

        /** The id of the subscription that has a destination with this id, or null. */
        String owner(String destinationId);
    }

    private final DestinationRegistry destinations;
    private final FilterSettings filterSettings;
    private final SubscriptionQuotas quotas;
    private final FilterRulesBuilder rulesBuilder;
    private final Clock clock;
    private final Supplier<UUID> ids;
    private final ObjectMapper mapper = Json.mapper();

    public SubscriptionFactory(DestinationRegistry destinations, FilterSettings filterSettings,
                               SubscriptionQuotas quotas, Clock clock, Supplier<UUID> ids) {
        this.destinations = Objects.requireNonNull(destinations, "destinations");
        this.filterSettings = Objects.requireNonNull(filterSettings, "filterSettings");
        this.quotas = Objects.requireNonNull(quotas, "quotas");
        this.rulesBuilder = new FilterRulesBuilder(filterSettings);
        this.clock = Objects.requireNonNull(clock, "clock");
        this.ids = Objects.requireNonNull(ids, "ids");
    }

    /** With random UUIDs. */
    public SubscriptionFactory(DestinationRegistry destinations, FilterSettings filterSettings,
                               SubscriptionQuotas quotas, Clock clock) {
        this(destinations, filterSettings, quotas, clock, UUID::randomUUID);
    }

    /** With random UUIDs and the default quotas. */
    public SubscriptionFactory(DestinationRegistry destinations, FilterSettings filterSettings, Clock clock) {
        this(destinations, filterSettings, SubscriptionQuotas.DEFAULTS, clock);
    }

    /** {@link #fromRequest(JsonNode, EventSubscription, String, DestinationOwners)} knowing no other subscription. */
    public EventSubscription fromRequest(JsonNode request, EventSubscription existing, String updatedBy) {
        return fromRequest(request, existing, updatedBy, DestinationOwners.NONE);
    }

    /**
     * The subscription a request creates, or, with {@code existing}, the new version of that subscription (id kept,
     * masked secrets replaced by the stored ones, version bumped).
     *
     * <p>Destination ids are the server's (issue 21, as the platform: one without an id gets one). A given id is
     * kept when no other destination of the request and no other subscription ({@code owners}) has it; otherwise
     * it is replaced by an id made from the subscription's id, the given id and its occurrence, so the same request
     * PUT again gets the same ids. A destination sent without an id keeps the id of the stored destination of the
     * same type and target it stands for (a file applied twice keeps its ids, and the state kept per destination).
     *
     * @throws SubscriptionException.Invalid naming the field
     */
    public EventSubscription fromRequest(JsonNode request, EventSubscription existing, String updatedBy,
                                         DestinationOwners owners) {
        if (request == null || !request.isObject()) {
            throw SubscriptionException.invalid("body", "must be a JSON object (a CreateEventSubscription)");
        }
        String name = requiredText(request, "name");
        if (name.length() > MAX_NAME_LENGTH) {
            throw SubscriptionException.invalid("name", "must be at most " + MAX_NAME_LENGTH + " characters");
        }
        if (name.contains("::")) {
            throw SubscriptionException.invalid("name", "must not contain '::'");
        }
        AlertType alertType = convert(request, "alertType", AlertType.class);
        TriggerConfig trigger = convert(request, "trigger", TriggerConfig.class);
        AlertFilteringInput input = convert(request, "input", AlertFilteringInput.class);
        List<String> resources = resources(request);
        FilteringRules rules = filteringRules(request, resources, alertType == null ? AlertType.NOTIFICATION
                : alertType, input);
        String id = existing != null ? existing.id() : ids.get().toString();
        List<SubscriptionDestination> dests = destinations(request, existing, id, owners);
        Integer batchSize = integer(request, "batchSize", 1);
        Integer retries = integer(request, "retries", 0);
        Integer pollInterval = integer(request, "pollInterval", 1);
        Boolean enabled = bool(request, "enabled");
        Map<String, JsonNode> extra = new LinkedHashMap<>();
        request.fields().forEachRemaining(e -> {
            if (!MODELLED.contains(e.getKey())) {
                extra.put(e.getKey(), e.getValue());
            }
        });
        double version = existing == null || existing.version() == null ? 0.1
                : Math.round((existing.version() + 0.1) * 10) / 10.0;
        EventSubscription subscription;
        try {
            subscription = new EventSubscription(id, name, name, optionalText(request, "displayName"),
                    optionalText(request, "description"), alertType, trigger, enabled, rules, input, dests, batchSize,
                    retries, pollInterval, optionalText(request, "provider") == null ? "user"
                    : optionalText(request, "provider"), node(request, "owners"), node(request, "domains"), version,
                    clock.millis(), updatedBy, extra);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw SubscriptionException.invalid("body", e.getMessage());
        }
        try { // issue 13: a Scheduled trigger's schedule and the grouping must be usable
            DigestPolicy.of(subscription, DIGEST_DEFAULTS);
        } catch (DigestConfigException e) {
            throw SubscriptionException.invalid(e.field(), e.reason());
        }
        return subscription;
    }

    private FilteringRules filteringRules(JsonNode request, List<String> resources, AlertType alertType,
                                          AlertFilteringInput input) {
        try {
            FilteringRules rules;
            String field;
            if (input == null && request.hasNonNull("filteringRules")) {
                FilteringRules given = convert(request, "filteringRules", FilteringRules.class);
                rules = new FilteringRules(resources, given.rules(), given.actions());
                field = "filteringRules";
            } else {
                rules = rulesBuilder.build(resources, alertType, input);
                field = input == null ? "filteringRules" : "input";
            }
            long program = SubscriptionFilter.compile(rules, filterSettings).programSize();
            if (program > quotas.maxFilterProgram()) {
                throw SubscriptionException.invalid(field, "the filter compiles to " + program + " instructions, "
                        + "more than " + quotas.maxFilterProgram() + " (quota.filterProgram)");
            }
            return rules;
        } catch (FilterInputException e) {
            throw SubscriptionException.invalid(e.field(), e.getMessage().substring(e.field().length() + 2));
        } catch (FilterException e) {
            throw SubscriptionException.invalid("filteringRules", e.getMessage());
        }
    }

    private List<String> resources(JsonNode request) {
        JsonNode node = request.get("resources");
        if (node == null || node.isNull()) {
            JsonNode rules = request.path("filteringRules").path("resources");
            node = rules.isArray() ? rules : null;
        }
        if (node == null || !node.isArray() || node.isEmpty()) {
            throw SubscriptionException.invalid("resources", "at least one resource (an entity type or \"all\") "
                    + "is required");
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            if (!node.get(i).isTextual() || node.get(i).asText().isBlank()) {
                throw SubscriptionException.invalid("resources[" + i + "]", "must be a non-blank string");
            }
            out.add(node.get(i).asText());
        }
        return out;
    }

    private List<SubscriptionDestination> destinations(JsonNode request, EventSubscription existing,
                                                       String subscriptionId, DestinationOwners owners) {
        JsonNode node = request.get("destinations");
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw SubscriptionException.invalid("destinations", "must be an array");
        }
        if (node.size() > quotas.maxDestinations()) {
            throw SubscriptionException.invalid("destinations", "has " + node.size() + " destinations, more than "
                    + quotas.maxDestinations() + " (quota.destinationsPerSubscription)");
        }
        List<SubscriptionDestination> stored = existing == null ? List.of() : existing.destinations();
        Set<String> claimed = new HashSet<>();
        List<SubscriptionDestination> out = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            String field = "destinations[" + i + "]";
            JsonNode d = node.get(i);
            if (!d.isObject()) {
                throw SubscriptionException.invalid(field, "must be an object");
            }
            for (String required : List.of("category", "type")) {
                if (!d.hasNonNull(required)) {
                    throw SubscriptionException.invalid(field + "." + required, "is required");
                }
            }
            for (String seconds : List.of("timeout", "readTimeout")) {
                JsonNode value = d.get(seconds);
                if (value != null && !value.isNull() && (!value.isIntegralNumber() || value.asLong() < 1
                        || value.asLong() > 3_600)) {
                    throw SubscriptionException.invalid(field + "." + seconds, "must be seconds in [1, 3600]");
                }
            }
            ObjectNode copy = d.deepCopy();
            SubscriptionDestination destination;
            try {
                destination = mapper.treeToValue(copy, SubscriptionDestination.class);
            } catch (Exception e) {
                throw SubscriptionException.invalid(field, "is not a valid destination: " + rootMessage(e));
            }
            String id = destinationId(field, copy.get("id"), destination, subscriptionId, stored, claimed, owners);
            claimed.add(id);
            copy.put("id", id);
            SubscriptionDestination previous = stored.stream().filter(p -> id.equals(p.id())).findFirst()
                    .orElse(null);
            try {
                if (previous != null && destination.config() != null) { // issue 21: no secret follows a new target
                    copy.set("config", Secrets.unmaskForUpdate(destination.type(), destination.config(),
                            previous.type(), previous.config()));
                }
                destination = mapper.treeToValue(copy, SubscriptionDestination.class);
                String masked = Secrets.firstMasked(destination.config());
                if (masked != null) {
                    throw new DestinationConfigException(masked, "is the masked value " + Secrets.MASK + " with no "
                            + "stored secret behind it (a new or copied destination): send the secret itself");
                }
                destinations.validate(destination);
            } catch (DestinationConfigException e) {
                throw SubscriptionException.invalid(field + "." + e.field(),
                        e.getMessage().substring(e.field().length() + 2));
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw SubscriptionException.invalid(field, "is not a valid destination: " + rootMessage(e));
            }
            out.add(destination);
        }
        return out;
    }

    /** The id a destination of the request gets (see {@link #fromRequest(JsonNode, EventSubscription, String, DestinationOwners)}). */
    private String destinationId(String field, JsonNode given, SubscriptionDestination destination,
                                 String subscriptionId, List<SubscriptionDestination> stored, Set<String> claimed,
                                 DestinationOwners owners) {
        if (given != null && !given.isNull()) {
            if (!given.isTextual() || given.asText().isBlank()) {
                throw SubscriptionException.invalid(field + ".id", "must be a non-blank string");
            }
            String wanted = given.asText();
            for (int n = 1; !free(wanted, subscriptionId, claimed, owners); n++) {
                wanted = UUID.nameUUIDFromBytes((subscriptionId + "/" + given.asText() + "/" + n)
                        .getBytes(StandardCharsets.UTF_8)).toString();
            }
            return wanted;
        }
        for (SubscriptionDestination p : stored) {
            if (p.id() != null && !claimed.contains(p.id()) && p.type() == destination.type()
                    && Secrets.changedTarget(Secrets.unmask(p.type(), destination.config(), p.config()),
                    p.config()) == null) {
                return p.id();
            }
        }
        return ids.get().toString();
    }

    private static boolean free(String id, String subscriptionId, Set<String> claimed, DestinationOwners owners) {
        String owner = owners.owner(id);
        return !claimed.contains(id) && (owner == null || owner.equals(subscriptionId));
    }

    private <T> T convert(JsonNode request, String field, Class<T> type) {
        JsonNode node = request.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        try {
            return mapper.treeToValue(node, type);
        } catch (Exception e) {
            throw SubscriptionException.invalid(field, "is not a valid " + type.getSimpleName() + ": "
                    + rootMessage(e));
        }
    }

    private static String requiredText(JsonNode request, String field) {
        JsonNode node = request.get(field);
        if (node == null || !node.isTextual() || node.asText().isBlank()) {
            throw SubscriptionException.invalid(field, "is required and must be a non-blank string");
        }
        return node.asText();
    }

    private static String optionalText(JsonNode request, String field) {
        JsonNode node = request.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isTextual()) {
            throw SubscriptionException.invalid(field, "must be a string");
        }
        return node.asText();
    }

    private static Integer integer(JsonNode request, String field, int min) {
        JsonNode node = request.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isIntegralNumber() || node.asLong() < min || node.asLong() > Integer.MAX_VALUE) {
            throw SubscriptionException.invalid(field, "must be an integer >= " + min);
        }
        return node.asInt();
    }

    private static Boolean bool(JsonNode request, String field) {
        JsonNode node = request.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isBoolean()) {
            throw SubscriptionException.invalid(field, "must be true or false");
        }
        return node.asBoolean();
    }

    private static JsonNode node(JsonNode request, String field) {
        JsonNode node = request.get(field);
        return node == null || node.isNull() ? null : node;
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String message = t.getMessage() == null ? t.toString() : t.getMessage();
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
