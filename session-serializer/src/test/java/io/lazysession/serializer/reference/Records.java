package io.lazysession.serializer.reference;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;

/** The records of the reference session, gathered in one holder to keep the package small. */
public final class Records {
  private Records() {}

  public record Address(String street, String city, String postalCode, String country)
      implements Serializable {}

  public record Authority(String role) implements Serializable {}

  public record CartItem(String sku, String name, int quantity, BigDecimal unitPrice,
      LocalDateTime addedAt) implements Serializable {}

  public record ProductRef(String sku, String name, Instant viewedAt) implements Serializable {}

  public record CsrfToken(String headerName, String parameterName, String token)
      implements Serializable {}

  public record SearchQuery(String text, Map<String, List<String>> filters, int page, Instant at)
      implements Serializable {}

  public record ReportRow(LocalDate day, String region, String product, long units, BigDecimal revenue)
      implements Serializable {}
}
