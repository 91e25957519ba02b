package io.changestream.ops.offsets;

import io.changestream.ops.UsageException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Which partitions a reset touches: {@code --all-topics} (every partition the group has a committed offset for) or
 * one or more {@code --topic T} / {@code --topic T:0,2} arguments, as in Kafka's tool.
 *
 * @param allTopics true for {@code --all-topics}
 * @param topics    the {@code --topic} arguments (empty with {@code allTopics})
 */
public record TopicSelection(boolean allTopics, List<TopicArg> topics) {

    public TopicSelection {
        topics = List.copyOf(Objects.requireNonNull(topics, "topics"));
        if (allTopics == !topics.isEmpty()) {
            throw new UsageException("give exactly one of --all-topics or --topic");
        }
    }

    /** {@code --all-topics}. */
    public static TopicSelection all() {
        return new TopicSelection(true, List.of());
    }

    /** Parses {@code --topic} values: {@code name} or {@code name:0,1,2}. */
    public static TopicSelection of(List<String> topicArgs) {
        List<TopicArg> parsed = new ArrayList<>();
        for (String arg : topicArgs) {
            parsed.add(TopicArg.parse(arg));
        }
        return new TopicSelection(false, parsed);
    }

    /**
     * One {@code --topic} argument.
     *
     * @param topic      the topic name
     * @param partitions the listed partitions, or empty for all of them
     */
    public record TopicArg(String topic, List<Integer> partitions) {

        public TopicArg {
            if (topic == null || topic.isBlank()) {
                throw new UsageException("--topic needs a topic name");
            }
            partitions = List.copyOf(partitions);
        }

        static TopicArg parse(String arg) {
            int colon = arg.indexOf(':');
            if (colon < 0) {
                return new TopicArg(arg.trim(), List.of());
            }
            List<Integer> partitions = new ArrayList<>();
            for (String p : arg.substring(colon + 1).split(",")) {
                try {
                    partitions.add(Integer.parseInt(p.trim()));
                } catch (NumberFormatException e) {
                    throw new UsageException("--topic '" + arg + "': partition '" + p + "' is not a number");
                }
            }
            return new TopicArg(arg.substring(0, colon).trim(), partitions);
        }
    }
}
