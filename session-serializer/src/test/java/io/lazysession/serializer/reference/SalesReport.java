package io.lazysession.serializer.reference;

import java.io.Serializable;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/** A large report kept in the session and rarely read: the case lazy inflation is for. */
public final class SalesReport implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String title;
  private final Instant generatedAt;
  private final List<Records.ReportRow> rows;

  public SalesReport(String title, Instant generatedAt, List<Records.ReportRow> rows) {
    this.title = title;
    this.generatedAt = generatedAt;
    this.rows = rows;
  }

  public List<Records.ReportRow> rows() {
    return rows;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SalesReport r && title.equals(r.title) && generatedAt.equals(r.generatedAt)
        && rows.equals(r.rows);
  }

  @Override
  public int hashCode() {
    return Objects.hash(title, rows.size());
  }
}
