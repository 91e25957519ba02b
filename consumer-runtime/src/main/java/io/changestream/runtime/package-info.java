/**
 * The generic consumer runtime under alert delivery: it knows records, keys and outcomes, nothing about alerts.
 * Modelled on ByteDance DataLeap's message-processing framework (consumer pool + processor pool + StateManager);
 * the peer it is measured against is Confluent Parallel Consumer.
 *
 * <h2>Use</h2>
 * <pre>{@code
 * RuntimeConfig config = RuntimeConfig.builder(List.of("cs.changes"),
 *         Map.of("bootstrap.servers", "localhost:9092", "group.id", "alerts"))
 *     .lanes(64).maxAttempts(5).processingTimeout(Duration.ofSeconds(30)).build();
 * ConsumerRuntime<String, String> runtime = ConsumerRuntime.builder(config, StringDeserializer::new,
 *         StringDeserializer::new, event -> deliver(event) ? Outcome.success()
 *                                                            : Outcome.retryAfter(Duration.ofSeconds(5), "503"))
 *     .failureHandler((event, failure) -> sendToDlq(event, failure))   // then the event is done
 *     .meterRegistry(prometheusRegistry)
 *     .build().start();
 * runtime.closeOnShutdown();        // SIGTERM: drain, commit, leave the group
 * RuntimeStatus status = runtime.status();   // "why is it stuck?"
 * }</pre>
 *
 * <h2>How an event flows (threads in bold)</h2>
 * <ol>
 *   <li>A <b>consumer thread</b> (one of {@link io.changestream.runtime.RuntimeConfig#consumerThreads()},
 *       each owning one {@code KafkaConsumer}: auto commit off, cooperative-sticky assignor) polls, wraps each record
 *       as an {@link io.changestream.runtime.Event}, tracks its offset in the {@code StateManager} and routes
 *       it by its routing key ({@link io.changestream.runtime.KeyFunction}, default the record key) to one of
 *       {@link io.changestream.runtime.RuntimeConfig#lanes()} lanes
 *       ({@link io.changestream.runtime.KeyAssignment}: a key stays in one lane while it has events in the
 *       runtime, so its events are processed in offset order).</li>
 *   <li>Each lane is a bounded FIFO drained by its own <b>lane thread</b>, which calls the
 *       {@link io.changestream.runtime.Processor}. The {@link io.changestream.runtime.Outcome}:
 *       success → done; {@code retryAfter} or a thrown {@link io.changestream.runtime.RetryLaterException} →
 *       parked in the delay queue with exponential backoff and jitter (up to
 *       {@link io.changestream.runtime.RuntimeConfig#maxAttempts()}); {@code deferUntil} → parked until a
 *       not-before instant (not an attempt); {@code await} → parked until its signal completes, at most a bound
 *       (not an attempt); {@code fail}, a non-retriable exception, exhausted retries or an attempt
 *       past {@link io.changestream.runtime.RuntimeConfig#processingTimeout()} (interrupted, its lane gets a
 *       new thread, never retried) → the {@link io.changestream.runtime.FailureHandler}, then done.</li>
 *   <li>A record that does not deserialize does not stop its partition: it goes to the failure handler with a
 *       null key and value ({@link io.changestream.runtime.Failure.Kind#NOT_DESERIALIZABLE}) and the
 *       consumer moves past it.</li>
 *   <li>While a key is parked, its later events wait behind it and other keys go on: per-key order holds across
 *       retries. A <b>timer thread</b> hands parked keys back to their lanes when due.</li>
 *   <li>Done offsets are committed by each consumer thread every
 *       {@link io.changestream.runtime.RuntimeConfig#commitInterval()}, only up to the lowest offset not done
 *       ({@code StateManager.committable}): at-least-once, a crash replays from there.</li>
 * </ol>
 *
 * <h2>Bounds and backpressure</h2>
 * A full lane, a delay queue at {@link io.changestream.runtime.RuntimeConfig#delayQueueCapacity()}, or a
 * partition with {@link io.changestream.runtime.RuntimeConfig#maxInFlightPerPartition()} offsets not committable
 * pauses the partitions concerned; the consumer thread keeps polling (heartbeats and {@code max.poll.interval.ms}
 * are never at risk: no call on the consumer thread blocks on processing) and resumes them when there is room.
 *
 * <h2>Rebalances and close</h2>
 * On revoke the consumer thread stops taking in records of the revoked partitions, waits up to
 * {@link io.changestream.runtime.RuntimeConfig#revokeTimeout()} for every event it took in from them, commits,
 * and forgets them; what did not finish by then is dropped and read again by the new owner. A graceful join or leave
 * therefore re-processes nothing. {@link io.changestream.runtime.ConsumerRuntime#close(CloseMode,
 * java.time.Duration)} drains ({@link io.changestream.runtime.CloseMode#DRAIN}) or drops
 * ({@link io.changestream.runtime.CloseMode#DONT_DRAIN}) within a timeout, commits, and is idempotent.
 *
 * <h2>Observing it</h2>
 * {@link io.changestream.runtime.RuntimeStatus}: per partition the committed offset, oldest in-flight offset
 * and its age, in-flight count, paused and why; per lane its queue length and load; the parked keys.
 * {@link io.changestream.runtime.metrics.RuntimeMeter} lists every meter.
 *
 * <p>Machinery lives in {@code internal} and is not API.
 */
package io.changestream.runtime;
