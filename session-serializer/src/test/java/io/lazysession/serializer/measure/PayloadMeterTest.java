package io.lazysession.serializer.measure;

import static org.assertj.core.api.Assertions.assertThat;

import io.lazysession.serializer.ClassAllowList;
import io.lazysession.serializer.reference.ReferenceSession;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PayloadMeterTest {
  private static final ClassAllowList ALLOW =
      ClassAllowList.builder().allowPackage(ReferenceSession.PACKAGE).build();

  @Test
  void measure_referenceSession_figuresPerAttributeAndChoice() {
    PayloadReport report = PayloadMeter.standard(ALLOW, null).measure(ReferenceSession.create());

    assertThat(report.totals()).extracting(PayloadReport.Totals::choice)
        .containsExactly("jdk", "jdk+zstd", "kryo", "kryo+zstd");
    assertThat(report.attributes()).extracting(PayloadReport.AttributeReport::name)
        .containsExactlyElementsOf(ReferenceSession.NAMES);
    PayloadReport.AttributeReport cart = report.attributes().get(2);
    assertThat(cart.type()).isEqualTo("io.lazysession.serializer.reference.Cart");
    for (PayloadReport.Figures f : cart.figures()) {
      assertThat(f.error()).isNull();
      assertThat(f.codecBytes()).isPositive();
      assertThat(f.storedBytes()).isBetween(3, f.codecBytes() + 13);
    }
    long jdk = report.totals("jdk").storedBytes();
    assertThat(report.totals("kryo").storedBytes()).isLessThan(jdk);
    assertThat(report.totals("kryo").storedBytes())
        .isEqualTo(report.attributes().stream().mapToLong(a -> a.figures().get(2).storedBytes()).sum());
    assertThat(report.toTable()).contains("cart", "total stored bytes", "kryo+zstd");
  }

  @Test
  void measure_valueOutsideAllowList_reportedAsErrorNotThrown() {
    Map<String, Object> attributes = new LinkedHashMap<>();
    attributes.put("ok", "fine");
    attributes.put("notAllowed", ReferenceSession.create().get("cart"));

    PayloadReport report = PayloadMeter.standard(ClassAllowList.jdkOnly(), null).measure(attributes);

    assertThat(report.attributes().get(1).figures())
        .allSatisfy(f -> assertThat(f.error()).contains("io.lazysession.serializer.reference"));
    assertThat(report.totals("kryo").storedBytes()).isEqualTo(report.attributes().get(0).figures()
        .get(2).storedBytes());
  }

  @Test
  void of_customChoices_keptInOrder() {
    PayloadMeter standard = PayloadMeter.standard(ALLOW, null);
    PayloadMeter meter = PayloadMeter.of(List.of(standard.choices().get(3), standard.choices().get(0)));

    assertThat(meter.choices()).extracting(PayloadMeter.Choice::label).containsExactly("kryo+zstd", "jdk");
  }
}
