package io.lazysession.it.bench.shop;

import java.io.Serial;
import java.io.Serializable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/** The signed-in customer. Immutable. */
public final class UserProfile implements Serializable {
  @Serial
  private static final long serialVersionUID = 1L;

  private final long id;
  private final String username;
  private final String email;
  private final String displayName;
  private final ArrayList<String> roles;
  private final Locale locale;
  private final Instant memberSince;
  private final boolean newsletter;

  public UserProfile(long id, String username, String email, String displayName, List<String> roles,
      Locale locale, Instant memberSince, boolean newsletter) {
    this.id = id;
    this.username = username;
    this.email = email;
    this.displayName = displayName;
    this.roles = new ArrayList<>(roles);
    this.locale = locale;
    this.memberSince = memberSince;
    this.newsletter = newsletter;
  }

  public String username() {
    return username;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof UserProfile other && id == other.id && newsletter == other.newsletter
        && username.equals(other.username) && email.equals(other.email)
        && displayName.equals(other.displayName) && roles.equals(other.roles)
        && locale.equals(other.locale) && memberSince.equals(other.memberSince);
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, username, email);
  }
}
