package io.changestream.alerts.filter;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import io.changestream.topics.model.ChangeEvent;
import io.changestream.topics.model.FieldChange;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The functions a condition may call, with the semantics of the platform's {@code AlertsRuleEvaluator}. Where the
 * platform looks data up in its database (owners, domains, the user's bot flag) the function reads the event's
 * {@code entity} instead (see docs/decisions/0501). Stateless; any thread.
 */
public enum FilterFunction {

    /** Entity type is one of the list ({@code THREAD} events pass). */
    MATCH_ANY_SOURCE("matchAnySource", Arity.LIST) {
        @Override
        boolean apply(EventFacts facts, List<String> values) {
            return facts.isThread() || values.contains(facts.event().entityType());
        }
    },
    /** An owner (user or team) of the entity has one of the names; read from {@code entity.owners}. */
    MATCH_ANY_OWNER_NAME("matchAnyOwnerName", Arity.LIST) {
        @Override
        boolean apply(EventFacts facts, List<String> values) {
            if (facts.isThread()) {
                return true;
            }
            JsonNode entity = facts.entity();
            if (entity == null) {
                return false;
            }
            return references(entity, "owners", "owner").stream()
                    .anyMatch(owner -> values.contains(EventFacts.text(owner, "name")));
        }
    },
    /**
     * Regular-expression search ({@code find()}) of each pattern in the entity's FQN, with RE2/J: linear in the FQN
     * whatever the pattern; an FQN longer than {@link FilterLimits#maxSubjectLength()} is an evaluation error.
     */
    MATCH_ANY_ENTITY_FQN("matchAnyEntityFqn", Arity.LIST) {
        @Override
        boolean apply(EventFacts facts, List<String> values) {
            if (facts.isThread()) {
                return true;
            }
            String fqn = EventFacts.text(facts.entity(), "fullyQualifiedName");
            if (fqn == null) {
                fqn = facts.event().entityFullyQualifiedName();
            }
            if (fqn == null) {
                return false;
            }
            int maxSubject = facts.settings().limits().maxSubjectLength();
            if (fqn.length() > maxSubject) {
                throw new FilterEvaluationException("matchAnyEntityFqn: the entity's FQN is " + fqn.length()
                        + " characters, longer than " + maxSubject + " (filter.maxSubjectLength)");
            }
            for (String value : values) {
                if (pattern(value).matcher(fqn).find()) {
                    return true;
                }
            }
            return false;
        }

        @Override
        void validateValue(String value, int position, FilterLimits limits) {
            if (value.length() > limits.maxPatternLength()) {
                throw new FilterSyntaxException("matchAnyEntityFqn pattern longer than " + limits.maxPatternLength()
                        + " characters (filter.maxPatternLength)", position);
            }
            if (PatternBudget.estimate(value, limits.maxPatternProgram()) > limits.maxPatternProgram()) {
                // refused before compiling: RE2/J expands counted repetitions, x{1000}{1000}… exhausts the heap
                throw new FilterSyntaxException("matchAnyEntityFqn pattern would compile to more than "
                        + limits.maxPatternProgram() + " instructions (filter.maxPatternProgram)", position);
            }
            Pattern compiled;
            try {
                compiled = pattern(value);
            } catch (PatternSyntaxException e) {
                // RE2/J names the offending fragment, not its offset: locate it in the pattern
                int at = e.getPattern() == null || e.getPattern().isEmpty() ? -1 : value.indexOf(e.getPattern());
                throw new FilterSyntaxException("matchAnyEntityFqn: invalid regular expression '" + value + "': "
                        + e.getDescription() + (at < 0 ? "" : " at pattern offset " + at + " ('" + e.getPattern()
                        + "')"), position);
            }
            if (compiled.programSize() > limits.maxPatternProgram()) {
                throw new FilterSyntaxException("matchAnyEntityFqn pattern compiles to " + compiled.programSize()
                        + " instructions, more than " + limits.maxPatternProgram() + " (filter.maxPatternProgram)",
                        position);
            }
        }
    },
    /** The entity id is one of the UUIDs. */
    MATCH_ANY_ENTITY_ID("matchAnyEntityId", Arity.LIST) {
        @Override
        boolean apply(EventFacts facts, List<String> values) {
            if (facts.isThread()) {
                return true;
            }
            String id = EventFacts.text(facts.entity(), "id");
            String entityId = id != null ? id : facts.event().entityId();
            UUID uuid;
            try {
                uuid = UUID.fromString(entityId);
            } catch (IllegalArgumentException e) {
                throw new FilterEvaluationException("entity id '" + entityId + "' is not a UUID", e);
            }
            return values.stream().map(UUID::fromString).anyMatch(uuid::equals);
        }

        @Override
        void validateValue(String value, int position, FilterLimits limits) {
            try {
                UUID.fromString(value);
            } catch (IllegalArgumentException e) {
                throw new FilterSyntaxException("matchAnyEntityId: '" + value + "' is not a UUID", position);
            }
        }
    },
    /** The event type is one of the list. */
    MATCH_ANY_EVENT_TYPE("matchAnyEventType", Arity.LIST) {
        @Override
        boolean apply(EventFacts facts, List<String> values) {
            return values.contains(facts.event().eventType());
        }
    },
    /** The user who made the change is one of the list. */
    MATCH_UPDATED_BY("matchUpdatedBy", Arity.LIST) {
        @Override
        boolean apply(EventFacts facts, List<String> values) {
            return facts.event().userName() != null && values.contains(facts.event().userName());
        }
    },
    /** A changed field (top-level name, or the full nested name) is one of the list. */
    MATCH_ANY_FIELD_CHANGE("matchAnyFieldChange", Arity.LIST) {
        @Override
        boolean apply(EventFacts facts, List<String> values) {
            if (facts.event().changeDescription() == null) {
                return false;
            }
            Set<String> fields = new HashSet<>();
            for (FieldChange change : facts.event().changeDescription().allChanges()) {
                fields.add(change.name());
                int dot = change.name().indexOf('.');
                if (dot > 0) {
                    fields.add(change.name().substring(0, dot));
                }
            }
            return values.stream().anyMatch(fields::contains);
        }
    },
    /** The entity belongs to a domain with one of the FQNs (entity {@code domains}/{@code domain}, or event ids). */
    MATCH_ANY_DOMAIN("matchAnyDomain", Arity.LIST) {
        @Override
        boolean apply(EventFacts facts, List<String> values) {
            if (facts.isThread()) {
                return true;
            }
            List<String> eventDomains = facts.event().domains();
            if (eventDomains != null && eventDomains.stream().anyMatch(values::contains)) {
                return true;
            }
            JsonNode entity = facts.entity();
            if (entity == null) {
                return false;
            }
            return references(entity, "domains", "domain").stream().anyMatch(domain ->
                    values.contains(EventFacts.text(domain, "fullyQualifiedName"))
                            || values.contains(EventFacts.text(domain, "name"))
                            || values.contains(EventFacts.text(domain, "id")));
        }
    },
    /**
     * changestream's extension (decision 2801): the entity has a tag (classification tag, tier or glossary term) whose
     * FQN is one of the list ({@code entity.tags[].tagFQN}, exact, case-insensitive). An ingestion pipeline whose
     * event carries no tags (a run status) is looked up through {@link FilterSettings#tags()}; when the platform
     * cannot say in time, the pipeline counts as tagged, so the failure of a critical pipeline is never dropped.
     */
    MATCH_ANY_TAG("matchAnyTag", Arity.LIST) {
        @Override
        boolean apply(EventFacts facts, List<String> values) {
            JsonNode entity = facts.entity();
            JsonNode tags = entity == null ? null : entity.get("tags");
            if (tags != null && tags.isArray()) {
                for (JsonNode tag : tags) {
                    if (anyIgnoreCase(values, EventFacts.text(tag, "tagFQN"))) {
                        return true;
                    }
                }
                return false;
            }
            if (!"ingestionPipeline".equals(facts.event().entityType())
                    || facts.settings().tags() == EntityTags.NONE) {
                return false;
            }
            String fqn = EventFacts.text(entity, "fullyQualifiedName");
            Optional<List<String>> looked = facts.settings().tags().tags(facts.event().entityType(),
                    fqn != null ? fqn : facts.event().entityFullyQualifiedName());
            return looked.map(list -> list.stream().anyMatch(t -> anyIgnoreCase(values, t))).orElse(true);
        }
    },
    /** The user who made the change is a bot ({@link FilterSettings}). */
    IS_BOT("isBot", Arity.NONE) {
        @Override
        boolean apply(EventFacts facts, List<String> values) {
            String user = facts.event().userName();
            return user != null && facts.settings().isBot(user);
        }
    },
    /** A test case (or suite) result has one of the statuses (case-insensitive). */
    MATCH_TEST_RESULT("matchTestResult", Arity.LIST) {
        @Override
        boolean apply(EventFacts facts, List<String> values) {
            ChangeEvent event = facts.event();
            if (event.changeDescription() == null
                    || !("testCase".equals(event.entityType()) || "testSuite".equals(event.entityType()))) {
                return false;
            }
            for (FieldChange change : facts.changes(true)) {
                if ("testCaseResult".equals(change.name())) {
                    JsonNode result = EventFacts.readValue(change.newValue(), "testCaseResult");
                    if (anyIgnoreCase(values, EventFacts.text(result, "testCaseStatus"))) {
                        return true;
                    }
                }
                if ("testCaseResultSummary".equals(change.name())) {
                    JsonNode summaries = EventFacts.readValue(change.newValue(), "testCaseResultSummary");
                    if (summaries != null && summaries.isArray()) {
                        for (JsonNode summary : summaries) {
                            if (anyIgnoreCase(values, EventFacts.text(summary, "status"))) {
                                return true;
                            }
                        }
                    }
                }
            }
            return false;
        }
    },
    /** A pipeline's {@code pipelineStatus.executionStatus} is one of the states (case-insensitive). */
    MATCH_PIPELINE_STATE("matchPipelineState", Arity.LIST) {
        @Override
        boolean apply(EventFacts facts, List<String> values) {
            return pipelineStatus(facts, "pipeline", "executionStatus", values);
        }
    },
    /** An ingestion pipeline's {@code pipelineStatus.pipelineState} is one of the states (case-insensitive). */
    MATCH_INGESTION_PIPELINE_STATE("matchIngestionPipelineState", Arity.LIST) {
        @Override
        boolean apply(EventFacts facts, List<String> values) {
            return pipelineStatus(facts, "ingestionPipeline", "pipelineState", values);
        }
    };

    /** What a function takes. */
    public enum Arity {
        /** No arguments: {@code isBot()}. */
        NONE,
        /** One string set or a list of strings: {@code f({'a','b'})} or {@code f('a','b')}. */
        LIST
    }

    private static final Map<String, FilterFunction> BY_NAME = Arrays.stream(values())
            .collect(Collectors.toUnmodifiableMap(FilterFunction::functionName, Function.identity()));

    private final String functionName;
    private final Arity arity;

    FilterFunction(String functionName, Arity arity) {
        this.functionName = functionName;
        this.arity = arity;
    }

    /** The name conditions use. */
    public String functionName() {
        return functionName;
    }

    /** What it takes. */
    public Arity arity() {
        return arity;
    }

    /** The function with this condition name. */
    public static Optional<FilterFunction> byName(String name) {
        return Optional.ofNullable(BY_NAME.get(name));
    }

    abstract boolean apply(EventFacts facts, List<String> values);

    void validate(int arguments, List<String> values, int position, FilterLimits limits) {
        if (arity == Arity.NONE && arguments != 0) {
            throw new FilterSyntaxException(functionName + "() takes no arguments", position);
        }
        if (arity == Arity.LIST && arguments == 0) {
            throw new FilterSyntaxException(functionName + " needs a list argument such as {'a','b'}", position);
        }
        for (String value : values) {
            validateValue(value, position, limits);
        }
    }

    void validateValue(String value, int position, FilterLimits limits) {
        // most functions accept any string
    }

    private static Pattern pattern(String value) {
        return PatternCache.get(value);
    }

    private static boolean anyIgnoreCase(List<String> values, String actual) {
        return actual != null && values.stream().anyMatch(actual::equalsIgnoreCase);
    }

    private static boolean pipelineStatus(EventFacts facts, String entityType, String field, List<String> values) {
        ChangeEvent event = facts.event();
        if (event.changeDescription() == null || !entityType.equals(event.entityType())) {
            return false;
        }
        for (FieldChange change : facts.changes(false)) {
            if ("pipelineStatus".equals(change.name())) {
                JsonNode status = EventFacts.readValue(change.newValue(), "pipelineStatus");
                if (anyIgnoreCase(values, EventFacts.text(status, field))) {
                    return true;
                }
            }
        }
        return false;
    }

    private static List<JsonNode> references(JsonNode entity, String listField, String singleField) {
        JsonNode list = entity.get(listField);
        if (list != null && list.isArray()) {
            ArrayList<JsonNode> out = new ArrayList<>();
            list.forEach(out::add);
            return out;
        }
        JsonNode single = entity.get(singleField);
        return single != null && single.isObject() ? List.of(single) : List.of();
    }
}
