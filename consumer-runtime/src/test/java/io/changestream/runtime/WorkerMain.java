package io.changestream.runtime;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One runtime instance in its own JVM, for {@link KillRestartIT}: consumes {@code in}, and for each event produces
 * {@code incarnation,partition,offset} under the event's key to {@code out}, waiting for the ack before the event is
 * done. SIGTERM drains and commits; SIGKILL is the crash under test.
 *
 * <p>Arguments: bootstrap servers, input topic, output topic, group id, incarnation id.
 */
public final class WorkerMain {

    private WorkerMain() {
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String in = args[1];
        String out = args[2];
        String group = args[3];
        String incarnation = args[4];
        Map<String, Object> producerProps = new HashMap<>();
        producerProps.put("bootstrap.servers", bootstrap);
        producerProps.put("acks", "all");
        producerProps.put("enable.idempotence", true);
        producerProps.put("linger.ms", 0);
        KafkaProducer<String, String> producer =
                new KafkaProducer<>(producerProps, new StringSerializer(), new StringSerializer());
        Map<String, Object> kafka = new HashMap<>();
        kafka.put("bootstrap.servers", bootstrap);
        kafka.put("group.id", group);
        kafka.put("auto.offset.reset", "earliest");
        kafka.put("session.timeout.ms", 6_000);
        kafka.put("heartbeat.interval.ms", 500);
        kafka.put("max.poll.records", 200);
        RuntimeConfig config = RuntimeConfig.builder(List.of(in), kafka)
                .lanes(4).laneCapacity(100).commitInterval(Duration.ofMillis(200))
                .revokeTimeout(Duration.ofSeconds(5)).closeTimeout(Duration.ofSeconds(15)).build();
        ConsumerRuntime<String, String> runtime = ConsumerRuntime.builder(config, StringDeserializer::new,
                StringDeserializer::new, (Event<String, String> event) -> {
                    Thread.sleep(5);
                    producer.send(new ProducerRecord<>(out, event.key(),
                            incarnation + "," + event.partition() + "," + event.offset())).get();
                    return Outcome.success();
                }).threadPrefix("worker-" + incarnation).build();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            runtime.close();
            producer.close(Duration.ofSeconds(5));
            stopped.countDown();
        }, "worker-shutdown"));
        runtime.start();
        stopped.await();
    }
}
