package io.lazysession.serializer.reference;

import java.io.Serializable;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Shaped like Spring Security's context: a principal, authorities, details, no Spring types. */
public final class SecurityContextSnapshot implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String principal;
  private final List<Records.Authority> authorities;
  private final boolean authenticated;
  private final Map<String, String> details;
  private final Instant authenticatedAt;

  public SecurityContextSnapshot(String principal, List<Records.Authority> authorities,
      boolean authenticated, Map<String, String> details, Instant authenticatedAt) {
    this.principal = principal;
    this.authorities = authorities;
    this.authenticated = authenticated;
    this.details = details;
    this.authenticatedAt = authenticatedAt;
  }

  public String principal() {
    return principal;
  }

  public List<Records.Authority> authorities() {
    return authorities;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SecurityContextSnapshot s && principal.equals(s.principal)
        && authorities.equals(s.authorities) && authenticated == s.authenticated
        && details.equals(s.details) && authenticatedAt.equals(s.authenticatedAt);
  }

  @Override
  public int hashCode() {
    return Objects.hash(principal, authorities);
  }
}
