package io.changestream.ops.cli;

import io.changestream.topics.TopicCatalog;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** A command against a cluster's changestream topics: the Kafka connection options and the topic namespace. */
abstract class NamespacedCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    KafkaOptions kafka;

    @Option(names = "--namespace", defaultValue = TopicCatalog.DEFAULT_NAMESPACE,
            description = "Topic name prefix (default ${DEFAULT-VALUE}).")
    String namespace;
}
