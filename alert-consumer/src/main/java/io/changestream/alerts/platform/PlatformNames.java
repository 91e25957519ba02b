package io.changestream.alerts.platform;

import io.changestream.settings.Setting;
import io.changestream.topics.model.PipelineState;
import io.changestream.topics.model.SubscriptionType;
import io.changestream.topics.serde.Json;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The platform's names of one of our enums ({@code partialSuccess} for a run state, {@code MsTeams} for a destination
 * type): read in any case, alone or as a comma-separated list, and as a setting of such a list
 * ({@code lineage.statuses}, {@code impact.states}, {@code delivery.atMostOnceTypes}). Immutable.
 *
 * @param <E> the enum
 */
public final class PlatformNames<E extends Enum<E>> {

    /** Run states ({@code failed}, {@code partialSuccess}, …). */
    public static final PlatformNames<PipelineState> RUN_STATES = new PlatformNames<>(PipelineState.class, "run state");
    /** Destination types ({@code Webhook}, {@code Email}, …). */
    public static final PlatformNames<SubscriptionType> DESTINATION_TYPES =
            new PlatformNames<>(SubscriptionType.class, "destination type");

    private final Class<E> type;
    private final String what;

    private PlatformNames(Class<E> type, String what) {
        this.type = type;
        this.what = what;
    }

    /** A setting of a list of these names, shown sorted ({@code failed,stopped}). */
    public Setting<Set<E>> setting(String key, Set<E> defaults) {
        return Setting.of(key, this::parseList, values -> values.stream().map(this::name).sorted()
                .collect(Collectors.joining(","))).defaultsTo(Set.copyOf(defaults));
    }

    /**
     * Reads a comma-separated list of names, case-insensitive; blanks skipped.
     *
     * @throws IllegalArgumentException naming the unknown name
     */
    public Set<E> parseList(String list) {
        Set<E> out = EnumSet.noneOf(type);
        for (String name : list.split(",")) {
            if (!name.isBlank()) {
                out.add(parse(name.strip()));
            }
        }
        return out;
    }

    /** The constant the platform calls {@code name} (any case). */
    public E parse(String name) {
        for (E constant : type.getEnumConstants()) {
            if (name(constant).equalsIgnoreCase(name)) {
                return constant;
            }
        }
        throw new IllegalArgumentException("unknown " + what + " '" + name + "', expected one of "
                + EnumSet.allOf(type).stream().map(this::name).collect(Collectors.joining(", ")));
    }

    /** The platform's name of {@code constant}. */
    public String name(E constant) {
        return Json.mapper().convertValue(constant, String.class);
    }
}
