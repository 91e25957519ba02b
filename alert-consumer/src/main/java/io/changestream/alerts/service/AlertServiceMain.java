package io.changestream.alerts.service;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * Command line entry: {@code AlertServiceMain <config.properties>} (settings: {@link AlertServiceConfig}; the ops
 * launcher calls it with a config path). Runs until SIGTERM or SIGINT, then drains (events taken in are finished and
 * settled in the ledger), commits, leaves the group and exits 0; exits 2 on a bad config, 1 on a failed start. The
 * main thread waits; the signal handler only releases it.
 */
public final class AlertServiceMain {

    private static final Logger LOG = LoggerFactory.getLogger(AlertServiceMain.class);

    private AlertServiceMain() {
    }

    public static void main(String[] args) {
        if (args.length != 1) {
            System.err.println("usage: AlertServiceMain <config.properties>  (settings: alert-consumer/README.md)");
            System.exit(2);
        }
        AlertServiceConfig config;
        try {
            config = AlertServiceConfig.load(Path.of(args[0]), System.getenv());
        } catch (RuntimeException e) {
            System.err.println("alert-consumer: bad config: " + e.getMessage());
            System.exit(2);
            return;
        }
        CountDownLatch stop = new CountDownLatch(1);
        Signal.handle(new Signal("TERM"), signal -> stop.countDown());
        Signal.handle(new Signal("INT"), signal -> stop.countDown());
        LOG.info("starting with {}", config);
        AlertService service;
        try {
            service = AlertService.start(config);
        } catch (RuntimeException e) {
            LOG.error("alert service could not start", e);
            System.exit(1);
            return;
        }
        System.out.println("READY http.port=" + service.httpPort());
        System.out.flush();
        try {
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.info("stop requested: draining");
        service.close();
        // Javalin leaves a non-daemon pool thread behind: exit explicitly
        System.exit(0);
    }
}
