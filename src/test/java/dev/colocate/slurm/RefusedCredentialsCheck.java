package dev.colocate.slurm;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Credentials real Slurm 22.05 refuses come back as a {@link SlurmAuthException} that says what to check, and neither
 * that message nor any log line carries the token or the key. Subclasses configure the credentials.
 */
abstract class RefusedCredentialsCheck {

    /** Every log record of the application while a test runs. */
    static final class CapturedLog extends Handler {
        final List<String> lines = new ArrayList<>();

        @Override
        public synchronized void publish(LogRecord record) {
            lines.add(record.getMessage() + " " + (record.getParameters() == null ? ""
                    : List.of(record.getParameters())) + " " + (record.getThrown() == null ? ""
                    : record.getThrown()));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }

        final CapturedLog log = new CapturedLog();

        @Inject
        SlurmControl slurm;

        @Inject
        SlurmTokens tokens;

        @BeforeEach
        void capture() {
            Logger.getLogger("").addHandler(log);
        }

        @AfterEach
        void release() {
            Logger.getLogger("").removeHandler(log);
        }

        void assertRefusedWithoutLeaking(List<String> secrets) {
            assertThatThrownBy(() -> slurm.nodes().await().atMost(Duration.ofSeconds(30)))
                    .isInstanceOf(SlurmAuthException.class)
                    .hasMessageContaining("refused colocate's token for user slurm")
                    .hasMessageContaining("colocate.slurm.jwt.key-file")
                    .satisfies(e -> secrets.forEach(s -> assertThat(e.getMessage()).doesNotContain(s)));
            given().get("/q/health/ready").then().statusCode(503)
                    .body("checks.find { it.name == 'slurm' }.status", equalTo("DOWN"))
                    .body("checks.find { it.name == 'slurm' }.data.error", containsString("refused"));

            assertThat(log.lines).as("captured log").isNotEmpty();
            for (String line : log.lines) {
                for (String secret : secrets) {
                    assertThat(line).doesNotContain(secret);
                }
            }
        }
}
