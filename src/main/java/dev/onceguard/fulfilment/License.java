package dev.onceguard.fulfilment;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.Instant;

/** The license of a paid order with digital goods; at most one per order. */
@Entity
@Table(name = "licenses")
public class License extends PanacheEntityBase {

    @Id
    public String licenseId;
    public String orderId;
    public String userId;
    public Instant createdAt;
}
