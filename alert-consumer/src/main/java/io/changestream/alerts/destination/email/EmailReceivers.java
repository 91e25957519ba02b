package io.changestream.alerts.destination.email;

import io.changestream.alerts.destination.DestinationConfigException;
import io.changestream.alerts.platform.PlatformDirectory;
import io.changestream.alerts.platform.PlatformUnavailableException;
import io.changestream.alerts.impact.Impact;
import com.fasterxml.jackson.databind.JsonNode;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.FieldChange;
import io.changestream.topics.model.SubscriptionCategory;
import io.changestream.topics.model.SubscriptionDestination;
import io.changestream.topics.serde.Json;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Who an e-mail destination goes to, by its category, as the platform resolves it: External and Assignees → the
 * {@code receivers} addresses; Users / Teams → the {@code receivers} are user / team names, each its e-mail (a
 * team's own address); Owners / Followers → the event entity's {@code owners} / {@code followers} (users and
 * teams, by id); Admins → every admin user; Mentions → the users and teams linked ({@code <#E::user::name>}) in the
 * description text the change set. Addresses listed in {@code receivers} of a role category are added. Names that
 * the platform does not know are skipped; a platform that cannot answer throws
 * {@link PlatformUnavailableException} (the delivery is retried). Thread-safe.
 */
public final class EmailReceivers {

    private static final Pattern MENTION = Pattern.compile("<#E::(user|team)::\"?([^>|\"]+)\"?(?:::[^>]*)?>");

    private final PlatformDirectory platform;

    public EmailReceivers(PlatformDirectory platform) {
        this.platform = Objects.requireNonNull(platform, "platform");
    }

    /**
     * Validates a destination at save time (no platform call).
     *
     * @throws DestinationConfigException naming the field
     */
    public static void validate(SubscriptionDestination destination) {
        JsonNode list = destination.config() == null ? null : destination.config().get("receivers");
        SubscriptionCategory category = destination.category() == null ? SubscriptionCategory.EXTERNAL
                : destination.category();
        switch (category) {
            case USERS, TEAMS -> {
                if (list == null || !list.isArray() || list.isEmpty()) {
                    throw new DestinationConfigException("config.receivers", "at least one "
                            + (category == SubscriptionCategory.USERS ? "user" : "team") + " name is required");
                }
                for (int i = 0; i < list.size(); i++) {
                    if (!list.get(i).isTextual() || list.get(i).asText().isBlank()) {
                        throw new DestinationConfigException("config.receivers[" + i + "]", "must be a name");
                    }
                }
            }
            case OWNERS, FOLLOWERS, ADMINS, MENTIONS -> {
                if (list != null && !list.isNull()) {
                    addresses(list);
                }
            }
            case DOWNSTREAM_OWNERS -> {
                if (list == null || !list.isArray() || list.isEmpty()) {
                    throw new DestinationConfigException("config.receivers", "at least one e-mail address is "
                            + "required: they get the alert also when the impact or its owners are unknown");
                }
                addresses(list);
            }
            default -> {
                if (list == null || !list.isArray() || list.isEmpty()) {
                    throw new DestinationConfigException("config.receivers", "at least one e-mail address is required");
                }
                addresses(list);
            }
        }
    }

    /** The union of the addresses of the destinations for an event (null for a run status). */
    public Set<InternetAddress> resolve(List<SubscriptionDestination> destinations, ChangeEvent event) {
        return resolve(destinations, event, null);
    }

    /**
     * The union of the addresses of the destinations for an event (null for a run status), with the failure impact
     * of a run for DownstreamOwners destinations: the owners of the impacted assets (users and teams, as Owners are
     * resolved) plus the listed {@code receivers}. An owner whose address the platform cannot say now is left out
     * (the listed receivers still get the alert on time); an unknown impact reaches the listed receivers only.
     */
    public Set<InternetAddress> resolve(List<SubscriptionDestination> destinations, ChangeEvent event, Impact impact) {
        Set<String> emails = new LinkedHashSet<>();
        for (SubscriptionDestination d : destinations) {
            if (d.category() == SubscriptionCategory.DOWNSTREAM_OWNERS) {
                emails.addAll(downstreamOwners(d, impact));
            } else {
                emails.addAll(of(d, event));
            }
        }
        Set<InternetAddress> out = new LinkedHashSet<>();
        for (String email : emails) {
            try {
                out.add(new InternetAddress(email, true));
            } catch (AddressException e) {
                // the platform holds a malformed address for a user: that one is skipped
            }
        }
        return out;
    }

    private List<String> of(SubscriptionDestination d, ChangeEvent event) {
        JsonNode list = d.config() == null ? null : d.config().get("receivers");
        List<String> named = new ArrayList<>();
        if (list != null && list.isArray()) {
            list.forEach(r -> named.add(r.asText()));
        }
        SubscriptionCategory category = d.category() == null ? SubscriptionCategory.EXTERNAL : d.category();
        List<String> out = new ArrayList<>();
        switch (category) {
            case USERS -> named.forEach(n -> out.addAll(platform.userByName(n)));
            case TEAMS -> named.forEach(n -> out.addAll(platform.teamByName(n)));
            case OWNERS, FOLLOWERS, ADMINS, MENTIONS -> {
                out.addAll(named);
                if (category == SubscriptionCategory.ADMINS) {
                    out.addAll(platform.admins());
                } else if (event != null && category == SubscriptionCategory.MENTIONS) {
                    out.addAll(mentions(event));
                } else if (event != null) {
                    JsonNode entity = entity(event);
                    for (JsonNode ref : category == SubscriptionCategory.OWNERS ? refs(entity, "owners", "owner")
                            : refs(entity, "followers", null)) {
                        out.addAll(reference(ref));
                    }
                }
            }
            default -> out.addAll(named);
        }
        return out;
    }

    private List<String> downstreamOwners(SubscriptionDestination d, Impact impact) {
        List<String> out = new ArrayList<>();
        JsonNode list = d.config() == null ? null : d.config().get("receivers");
        if (list != null && list.isArray()) {
            list.forEach(r -> out.add(r.asText()));
        }
        if (impact == null) {
            return out;
        }
        for (Impact.Owner owner : impact.owners()) {
            boolean team = "team".equals(owner.type());
            try {
                if (owner.id() != null) {
                    out.addAll(team ? platform.teamById(owner.id()) : platform.userById(owner.id()));
                } else if (owner.name() != null) {
                    out.addAll(team ? platform.teamByName(owner.name()) : platform.userByName(owner.name()));
                }
            } catch (PlatformUnavailableException e) {
                // this owner's address is unknown now; the alert is not delayed for it
            }
        }
        return out;
    }

    private List<String> reference(JsonNode ref) {
        boolean team = "team".equals(ref.path("type").asText());
        String id = ref.path("id").asText("");
        String name = ref.path("name").asText("");
        if (!id.isBlank()) {
            return team ? platform.teamById(id) : platform.userById(id);
        }
        if (!name.isBlank()) {
            return team ? platform.teamByName(name) : platform.userByName(name);
        }
        return List.of();
    }

    private List<String> mentions(ChangeEvent event) {
        List<String> out = new ArrayList<>();
        if (event.changeDescription() == null) {
            return out;
        }
        List<FieldChange> changes = new ArrayList<>(event.changeDescription().fieldsAdded());
        changes.addAll(event.changeDescription().fieldsUpdated());
        for (FieldChange change : changes) {
            boolean description = change.name().equals("description") || change.name().endsWith(".description");
            if (!description || change.newValue() == null) {
                continue;
            }
            String text = change.newValue().isTextual() ? change.newValue().asText() : change.newValue().toString();
            Matcher m = MENTION.matcher(text);
            while (m.find()) {
                out.addAll(m.group(1).equals("team") ? platform.teamByName(m.group(2))
                        : platform.userByName(m.group(2)));
            }
        }
        return out;
    }

    private static JsonNode entity(ChangeEvent event) {
        JsonNode entity = event.entity();
        if (entity != null && entity.isTextual()) {
            try {
                return Json.mapper().readTree(entity.asText());
            } catch (java.io.IOException e) {
                return null;
            }
        }
        return entity;
    }

    private static List<JsonNode> refs(JsonNode entity, String listField, String singleField) {
        List<JsonNode> out = new ArrayList<>();
        if (entity == null) {
            return out;
        }
        JsonNode list = entity.get(listField);
        if (list != null && list.isArray()) {
            list.forEach(out::add);
        } else if (singleField != null && entity.path(singleField).isObject()) {
            out.add(entity.get(singleField));
        }
        return out;
    }

    private static void addresses(JsonNode list) {
        if (!list.isArray()) {
            throw new DestinationConfigException("config.receivers", "must be an array of e-mail addresses");
        }
        for (int i = 0; i < list.size(); i++) {
            try {
                new InternetAddress(list.get(i).asText(), true);
            } catch (AddressException e) {
                throw new DestinationConfigException("config.receivers[" + i + "]", "is not an e-mail address");
            }
        }
    }
}
