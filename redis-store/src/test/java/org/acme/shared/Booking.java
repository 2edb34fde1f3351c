package org.acme.shared;

import java.io.Serializable;
import java.util.Date;

/**
 * An entity-like DTO as a JPA or JDBC application loads it: its {@code java.util.Date} field holds
 * what the driver or Hibernate put there, a {@code java.sql.Timestamp}.
 */
public record Booking(String reference, Date when) implements Serializable {}
