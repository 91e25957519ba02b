package io.changestream.alerts.filter;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The filters and triggers changestream can compile, with the platform's names, conditions and argument names
 * (pinned in the platform's {@code AlertCatalogTest}). Definitions whose functions changestream does not implement
 * (conversation mentions, test-suite membership, data contracts) are absent, so a request naming them is refused
 * with 400. One is changestream's own: {@code filterByTag} ({@code tagList}) → {@code matchAnyTag}. Immutable; any thread.
 */
public final class FilterCatalog {

    private static final List<FilterDefinition> DEFINITIONS = List.of(
            def("filterBySource", "matchAnySource(${sourceList})", "sourceList"),
            def("filterByOwnerName", "matchAnyOwnerName(${ownerNameList})", "ownerNameList"),
            def("filterByOwner", "matchAnyOwnerName(${ownerNameList})", "ownerNameList"),
            def("filterByFqn", "matchAnyEntityFqn(${fqnList})", "fqnList"),
            def("filterByEntityId", "matchAnyEntityId(${entityIdList})", "entityIdList"),
            def("filterByEventType", "matchAnyEventType(${eventTypeList})", "eventTypeList"),
            def("filterByUpdaterName", "matchUpdatedBy(${updateByUserList})", "updateByUserList"),
            def("filterByFieldChange", "matchAnyFieldChange(${fieldChangeList})", "fieldChangeList"),
            def("filterByDomain", "matchAnyDomain(${domainList})", "domainList"),
            // changestream's extension (decision 2801): the platform's alerts have no tag filter
            def("filterByTag", "matchAnyTag(${tagList})", "tagList"),
            def("filterByGeneralMetadataEvents", "matchAnyFieldChange({'description', 'tags'})"),
            def("filterByUpdaterIsBot", "isBot()"),
            def("GetTableSchemaChanges", "matchAnyFieldChange({'columns','dataModel','joins'})"),
            def("GetTableMetricsUpdates", "matchAnyFieldChange({'customMetrics', 'profile'})"),
            def("GetTopicSchemaChanges", "matchAnyFieldChange({'messageSchema'})"),
            def("GetContainerSchemaChanges", "matchAnyFieldChange({'parent','children'})"),
            def("GetPipelineStatusUpdates", "matchPipelineState(${pipelineStateList})", "pipelineStateList"),
            def("GetIngestionPipelineStatusUpdates", "matchIngestionPipelineState(${ingestionPipelineStateList})",
                    "ingestionPipelineStateList"),
            def("GetTestCaseStatusUpdates", "matchTestResult(${testResultList})", "testResultList"),
            def("GetTestSuiteStatusUpdates", "matchTestResult(${testResultList})", "testResultList"),
            def("GetTestCaseSchemaChanges",
                    "matchAnyFieldChange({'testDefinition','parameterValues','description'})"),
            def("GetTestSuiteSchemaChanges", "matchAnyFieldChange({'connection','pipelines','description'})"));

    private static final Map<String, FilterDefinition> BY_NAME = DEFINITIONS.stream()
            .collect(Collectors.toUnmodifiableMap(FilterDefinition::name, Function.identity()));

    private FilterCatalog() {
    }

    /** Every definition. */
    public static List<FilterDefinition> definitions() {
        return DEFINITIONS;
    }

    /** The definition with this name. */
    public static Optional<FilterDefinition> byName(String name) {
        return Optional.ofNullable(name == null ? null : BY_NAME.get(name));
    }

    private static FilterDefinition def(String name, String condition, String... arguments) {
        return new FilterDefinition(name, condition, List.of(arguments));
    }
}
