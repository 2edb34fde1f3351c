package io.lazysession.serializer.reference;

import java.io.Serializable;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Locale;
import java.util.Objects;
import java.util.UUID;

/** A signed-in customer; a plain class with a constructor, getters and equals. */
public final class UserProfile implements Serializable {
  private static final long serialVersionUID = 1L;

  private final UUID id;
  private final String username;
  private final String email;
  private final String displayName;
  private final Records.Address shippingAddress;
  private final LocalDate birthDate;
  private final Locale locale;
  private final Instant registeredAt;
  private int loyaltyPoints;

  public UserProfile(UUID id, String username, String email, String displayName,
      Records.Address shippingAddress, LocalDate birthDate, Locale locale, Instant registeredAt,
      int loyaltyPoints) {
    this.id = id;
    this.username = username;
    this.email = email;
    this.displayName = displayName;
    this.shippingAddress = shippingAddress;
    this.birthDate = birthDate;
    this.locale = locale;
    this.registeredAt = registeredAt;
    this.loyaltyPoints = loyaltyPoints;
  }

  public UUID id() {
    return id;
  }

  public String username() {
    return username;
  }

  public int loyaltyPoints() {
    return loyaltyPoints;
  }

  public void addLoyaltyPoints(int points) {
    loyaltyPoints += points;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof UserProfile u && id.equals(u.id) && username.equals(u.username)
        && email.equals(u.email) && displayName.equals(u.displayName)
        && shippingAddress.equals(u.shippingAddress) && birthDate.equals(u.birthDate)
        && locale.equals(u.locale) && registeredAt.equals(u.registeredAt)
        && loyaltyPoints == u.loyaltyPoints;
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, username);
  }
}
