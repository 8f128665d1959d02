package dev.onceguard.platform;

import dev.onceguard.platform.Jobs;
import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

import java.time.Instant;
import java.util.Map;

/** One run of one scheduled job on one replica. */
@Entity
@Table(name = "job_runs")
public class JobRun extends PanacheEntityBase {

    public enum Outcome { SUCCEEDED, FAILED }

    /** Taken from the table's sequence when the run starts (see {@link Jobs}), so that its changes can name it. */
    @Id
    public Long id;
    public String job;
    public String replica;
    public Instant startedAt;
    public Instant finishedAt;
    @Enumerated(EnumType.STRING)
    public Outcome outcome;
    @JdbcTypeCode(SqlTypes.JSON)
    public Map<String, Long> counts;
    public String error;
}
