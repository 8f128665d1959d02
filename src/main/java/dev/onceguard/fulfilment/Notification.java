package dev.onceguard.fulfilment;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.Instant;

/** A notification sent to a user; {@code dedupeKey} names the business fact it announces, so it is sent once. */
@Entity
@Table(name = "notifications")
public class Notification extends PanacheEntityBase {

    @Id
    public String notificationId;
    public String dedupeKey;
    public String kind;
    public String orderId;
    public String userId;
    public Instant createdAt;
}
