package io.changestream.runtime;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;

/**
 * The processor contract for the {@link AsyncProcessor}: the work runs on a pool of its own and completes the stage
 * there, the way an asynchronous HTTP client would; lanes never wait for it.
 */
class AsyncProcessorContractIT extends ProcessorContract {

    private final ExecutorService pool = Executors.newFixedThreadPool(16);

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    @Override
    ConsumerRuntime.Builder<String, String> builder(RuntimeConfig config, Work work) {
        return ConsumerRuntime.asyncBuilder(config, StringDeserializer::new, StringDeserializer::new,
                event -> CompletableFuture.supplyAsync(() -> {
                    try {
                        return work.apply(event);
                    } catch (Exception e) {
                        throw new CompletionException(e);
                    }
                }, pool));
    }
}
