package io.changestream.alerts.delivery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.changestream.topics.model.EventSubscription;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.model.SubscriptionType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One send of a subscription, grouped like the platform: the e-mail destinations of a subscription become one message
 * to the union of their receivers; the other destinations of one type that share an endpoint become one request.
 * Change events go to every type but OpenLineage; run statuses only to OpenLineage and to destinations of category
 * DownstreamOwners (impact alerts, issue 28). The platform-internal types
 * (ActivityFeed, GovernanceWorkflowChangeEvent) are not delivered by this service and are left out. Immutable.
 *
 * @param key         stable key of the group within its subscription (type and first member)
 * @param destination what is sent to (a merged copy for e-mail)
 * @param memberIds   ids of the subscription's destinations this send covers (status is kept per member)
 */
public record DestinationGroup(String key, SubscriptionDestination destination, List<String> memberIds) {

    /** The destination config field choosing the guarantee: {@value #AT_MOST_ONCE} or {@code atLeastOnce}. */
    public static final String DELIVERY_FIELD = "delivery";
    /** The value of {@value #DELIVERY_FIELD} for at-most-once. */
    public static final String AT_MOST_ONCE = "atMostOnce";

    private static final Set<SubscriptionType> NOT_DELIVERED = Set.of(SubscriptionType.ACTIVITY_FEED,
            SubscriptionType.GOVERNANCE_WORKFLOW_CHANGE_EVENT);

    public DestinationGroup {
        memberIds = List.copyOf(memberIds);
    }

    /** The groups of the enabled destinations of an enabled subscription, in destination order. */
    public static List<DestinationGroup> of(EventSubscription subscription, boolean runStatus) {
        Map<String, List<Integer>> members = new LinkedHashMap<>();
        List<SubscriptionDestination> active = subscription.activeDestinations();
        for (int i = 0; i < active.size(); i++) {
            SubscriptionDestination d = active.get(i);
            if (NOT_DELIVERED.contains(d.type()) || runStatus != takesRunStatuses(d)) {
                continue;
            }
            String by = d.type() == SubscriptionType.EMAIL ? "" : endpoint(d.config());
            members.computeIfAbsent(d.type().name() + "|" + by, k -> new ArrayList<>()).add(i);
        }
        List<DestinationGroup> groups = new ArrayList<>();
        members.values().forEach(indexes -> {
            SubscriptionDestination first = active.get(indexes.get(0));
            List<String> ids = indexes.stream().map(i -> memberId(active.get(i), i)).toList();
            SubscriptionDestination send = first.type() == SubscriptionType.EMAIL && indexes.size() > 1
                    ? mergedEmail(first, indexes.stream().map(active::get).toList()) : first;
            groups.add(new DestinationGroup(first.type().name() + ":" + ids.get(0), send, ids));
        });
        return groups;
    }

    /** Whether a destination takes run statuses (OpenLineage, impact alerts) rather than change events. */
    static boolean takesRunStatuses(SubscriptionDestination d) {
        return d.type() == SubscriptionType.OPEN_LINEAGE
                || d.category() == io.changestream.topics.model.SubscriptionCategory.DOWNSTREAM_OWNERS;
    }

    /**
     * Whether this group is sent at most once: its destination's {@code config.delivery}
     * ({@value #AT_MOST_ONCE} or {@code atLeastOnce}), else whether its type is one of
     * {@code atMostOnceTypes} ({@code delivery.atMostOnceTypes}).
     */
    public boolean atMostOnce(Set<SubscriptionType> atMostOnceTypes) {
        JsonNode config = destination.config();
        String choice = config == null ? "" : config.path(DELIVERY_FIELD).asText("");
        if (AT_MOST_ONCE.equalsIgnoreCase(choice)) {
            return true;
        }
        if ("atLeastOnce".equalsIgnoreCase(choice)) {
            return false;
        }
        return atMostOnceTypes.contains(destination.type());
    }

    static String memberId(SubscriptionDestination d, int index) {
        return d.id() != null ? d.id() : d.type().name() + "#" + index;
    }

    private static String endpoint(JsonNode config) {
        if (config == null) {
            return "";
        }
        JsonNode endpoint = config.get("endpoint");
        return endpoint != null && endpoint.isTextual() ? endpoint.asText() : config.toString();
    }

    private static SubscriptionDestination mergedEmail(SubscriptionDestination first,
                                                       List<SubscriptionDestination> all) {
        Set<String> receivers = new LinkedHashSet<>();
        for (SubscriptionDestination d : all) {
            JsonNode list = d.config() == null ? null : d.config().get("receivers");
            if (list != null && list.isArray()) {
                list.forEach(r -> receivers.add(r.asText()));
            }
        }
        ObjectNode config = first.config() != null && first.config().isObject()
                ? ((ObjectNode) first.config()).deepCopy() : JsonNodeFactory.instance.objectNode();
        ArrayNode merged = config.putArray("receivers");
        receivers.forEach(merged::add);
        return new SubscriptionDestination(first.id(), first.category(), first.type(), first.timeout(),
                first.readTimeout(), true, config, null, null);
    }
}
