package io.changestream.cdc;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * Command line entry: {@code CdcMain <config.properties>}. Runs the connector until SIGTERM or SIGINT, then stops
 * gracefully (stop reading, flush, commit offsets) and exits 0; exits 2 on a bad config, 1 on a failed start.
 * The main thread waits; the signal handler only releases it.
 */
public final class CdcMain {

    private static final Logger LOG = LoggerFactory.getLogger(CdcMain.class);

    private CdcMain() {
    }

    public static void main(String[] args) {
        if (args.length != 1) {
            System.err.println("usage: CdcMain <config.properties>  (settings: cdc-connector/README.md)");
            System.exit(2);
        }
        CdcConfig config;
        try {
            config = CdcConfig.load(Path.of(args[0]), System.getenv());
        } catch (CdcException e) {
            System.err.println("cdc-connector: " + e.getMessage());
            System.exit(2);
            return;
        }
        CountDownLatch stop = new CountDownLatch(1);
        Signal.handle(new Signal("TERM"), signal -> stop.countDown());
        Signal.handle(new Signal("INT"), signal -> stop.countDown());
        CdcConnector connector = new CdcConnector(config);
        try {
            connector.start();
        } catch (RuntimeException e) {
            LOG.error("cdc-connector could not start", e);
            connector.close();
            System.exit(1);
        }
        try {
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.info("stop requested: stopping gracefully");
        connector.close();
        // Jetty and Debezium leave non-daemon helper threads behind: exit explicitly
        System.exit(0);
    }
}
