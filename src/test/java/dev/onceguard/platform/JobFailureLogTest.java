package dev.onceguard.platform;

import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import jakarta.persistence.PersistenceException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A job failing run after run for the same cause (the database out of reach fails the outbox relay every second)
 * logs one line per run, with the stack trace only on the first of them; another cause gets its own stack trace once.
 */
@QuarkusTest
class JobFailureLogTest {

    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final Logger logger = Logger.getLogger(Jobs.class.getName());

    @Inject
    Jobs jobs;

    @BeforeEach
    void captureTheJobsLog() {
        logger.addHandler(capture);
    }

    @AfterEach
    void stopCapturing() {
        logger.removeHandler(capture);
    }

    @Test
    void aJobFailingForTheSameCauseLogsOneLinePerRunAndItsStackTraceOnce() {
        for (int run = 0; run < 5; run++) {
            jobs.runNow(Jobs.RETENTION_CLEANUP, () -> {
                throw new PersistenceException("JDBC exception executing SQL",
                        new SQLException("Connection to 127.0.0.1:5432 refused", "08001"));
            });
        }
        jobs.runNow(Jobs.RETENTION_CLEANUP, () -> {
            throw new IllegalStateException("a different failure");
        });
        jobs.runNow(Jobs.RETENTION_CLEANUP, Map::of);

        List<LogRecord> failures = records.stream().filter(r -> r.getLevel().intValue() >= Level.SEVERE.intValue()).toList();
        assertThat(failures).hasSize(6);
        assertThat(failures).allSatisfy(r -> assertThat(text(r)).doesNotContain("\n"));
        assertThat(failures.get(0).getThrown()).as("the first run of an outage brings its stack trace").isNotNull();
        assertThat(failures.subList(1, 5)).allSatisfy(r -> {
            assertThat(r.getThrown()).as("repeated runs of the same outage").isNull();
            assertThat(text(r)).contains("job retention-cleanup failed again",
                    "java.sql.SQLException: Connection to 127.0.0.1:5432 refused");
        });
        assertThat(failures.get(5).getThrown()).as("a new cause brings its own stack trace").isNotNull();
        assertThat(text(failures.get(5))).contains("a different failure");
        assertThat(records).anyMatch(r -> r.getLevel().intValue() < Level.SEVERE.intValue()
                && text(r).contains("job retention-cleanup succeeded again"));
    }

    private static String text(LogRecord record) {
        return record.getParameters() == null ? record.getMessage() : String.format(record.getMessage(), record.getParameters());
    }
}
