package io.changestream.alerts.platform;

import io.changestream.settings.Setting;
import io.changestream.topics.model.PipelineState;
import io.changestream.topics.serde.Json;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Run states by the platform's names ({@code failed}, {@code partialSuccess}, …): parsed from a comma-separated list in
 * any case, and as a setting of such a list ({@code lineage.statuses}, {@code impact.states}). Stateless.
 */
public final class RunStates {

    private RunStates() {
    }

    /** A setting of run states by the platform's names, shown sorted ({@code failed,stopped}). */
    public static Setting<Set<PipelineState>> setting(String key, Set<PipelineState> defaultStates) {
        return Setting.of(key, RunStates::parse, states -> states.stream().map(RunStates::platformName).sorted()
                .collect(Collectors.joining(","))).defaultsTo(Set.copyOf(defaultStates));
    }

    /**
     * Reads a list of the platform's state names ({@code failed,partialSuccess}), case-insensitive.
     *
     * @throws IllegalArgumentException naming the unknown state
     */
    public static Set<PipelineState> parse(String list) {
        Set<PipelineState> states = EnumSet.noneOf(PipelineState.class);
        for (String name : list.split(",")) {
            if (!name.isBlank()) {
                states.add(state(name.strip()));
            }
        }
        return states;
    }

    /** The state the platform calls {@code name} (any case). */
    public static PipelineState state(String name) {
        for (PipelineState s : PipelineState.values()) {
            if (platformName(s).equalsIgnoreCase(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown run state '" + name + "', expected one of "
                + EnumSet.allOf(PipelineState.class).stream().map(RunStates::platformName)
                .collect(Collectors.joining(", ")));
    }

    /** The platform's name of a state ({@code partialSuccess}). */
    public static String platformName(PipelineState state) {
        return Json.mapper().valueToTree(state).asText();
    }
}
