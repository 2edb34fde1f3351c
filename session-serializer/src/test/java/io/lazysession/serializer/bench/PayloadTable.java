package io.lazysession.serializer.bench;

import io.lazysession.serializer.measure.PayloadMeter;
import io.lazysession.serializer.measure.PayloadReport;
import io.lazysession.serializer.reference.ReferenceSession;
import java.util.List;
import java.util.Map;

/**
 * Prints stored bytes per attribute and encoding for the reference sessions, with {@link PayloadMeter}:
 * {@code mvn -pl session-serializer -Pbench test-compile exec:exec -Dbench.main=io.lazysession.serializer.bench.PayloadTable -Djmh.args=}.
 */
public final class PayloadTable {
  private PayloadTable() {}

  public static void main(String[] args) {
    List<PayloadMeter.Choice> choices = new java.util.ArrayList<>(
        PayloadMeter.standard(Encodings.ALLOW, Encodings.dictionary()).choices());
    PayloadMeter meter = PayloadMeter.of(choices);
    for (Map.Entry<String, Map<String, Object>> session : Map.of("small", ReferenceSession.small(),
        "create", ReferenceSession.create(), "large", ReferenceSession.large()).entrySet()) {
      PayloadReport report = meter.measure(session.getValue());
      System.out.println("== ReferenceSession." + session.getKey() + "()");
      System.out.println(report.toTable());
      long jdk = report.totals("jdk").storedBytes();
      for (PayloadReport.Totals t : report.totals()) {
        System.out.printf("%-16s %8d bytes  1/%.1f of jdk%n", t.choice(), t.storedBytes(),
            (double) jdk / t.storedBytes());
      }
      System.out.println();
    }
  }
}
