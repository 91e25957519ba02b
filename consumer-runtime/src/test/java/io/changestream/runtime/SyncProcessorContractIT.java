package io.changestream.runtime;

import org.apache.kafka.common.serialization.StringDeserializer;

/** The processor contract for the synchronous {@link Processor}: the work runs on the lane's thread. */
class SyncProcessorContractIT extends ProcessorContract {

    @Override
    ConsumerRuntime.Builder<String, String> builder(RuntimeConfig config, Work work) {
        return ConsumerRuntime.builder(config, StringDeserializer::new, StringDeserializer::new, work::apply);
    }
}
