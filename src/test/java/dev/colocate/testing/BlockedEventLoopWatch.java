package dev.colocate.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails the test during which Vert.x' blocked-thread checker warned that an event loop (or a worker) was blocked: a
 * blocking call (a Kubernetes call, an await) in a Mutiny callback that completes on an event loop stalls every
 * REST client and HTTP request that shares it. Registered for every test (META-INF/services, autodetection on in
 * junit-platform.properties); the checker keeps its production limits.
 */
public class BlockedEventLoopWatch implements BeforeEachCallback, AfterEachCallback {

    private static final List<String> WARNINGS = new ArrayList<>();

    /** The checker's warnings, from the log record's message ("Thread ... has been blocked for ..."). */
    private static final class Collector extends Handler {
        @Override
        public void publish(LogRecord record) {
            String message = record.getMessage();
            if (message != null && message.contains("has been blocked for")) {
                synchronized (WARNINGS) {
                    WARNINGS.add(message);
                }
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        // Quarkus configures logging again when it starts an application: put the collector back each time
        Logger root = Logger.getLogger("");
        for (Handler h : root.getHandlers()) {
            if (h.getClass().getName().equals(Collector.class.getName())) {
                return;
            }
        }
        root.addHandler(new Collector());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        List<String> seen;
        synchronized (WARNINGS) {
            seen = List.copyOf(WARNINGS);
            WARNINGS.clear();
        }
        if (!seen.isEmpty()) {
            throw new AssertionError("Vert.x' blocked-thread checker warned during this test: " + seen);
        }
    }
}
