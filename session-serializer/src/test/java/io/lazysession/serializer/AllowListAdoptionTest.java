package io.lazysession.serializer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lazysession.serializer.codec.CodecKind;
import io.lazysession.serializer.fixtures.Point;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An allow-list a team can adopt: the organisation rule for the application's packages, refusals
 * that say what to set, audit mode, and type names as source writes them.
 */
class AllowListAdoptionTest {
  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
      "org.acme.shop, org.acme",
      "org.acme.shop.web, org.acme",
      "com.example.demo, com.example",
      "io.github.alice.shop, io.github.alice",
      "uk.co.acme.shop, uk.co.acme",
      "org.acme, org.acme",
      "shop, shop",
      "org.springframework.samples.petclinic, org.springframework.samples.petclinic",
      "org.apache.fineract.portfolio, org.apache.fineract.portfolio",
      "com.fasterxml.demo.app, com.fasterxml.demo.app",
      "jakarta.shop.app, jakarta.shop.app",
      "io.lazysession.redis.bootapp, io.lazysession.redis.bootapp"})
  void organizationPackage_applicationPackage_organisationPrefixNeverAThirdPartyRoot(
      String application, String expected) {
    assertThat(ClassAllowList.organizationPackage(application)).isEqualTo(expected);
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void serialize_classOutsideTheList_refusalNamesThePackageAndTheProperty(CodecKind codec) {
    AttributeSerializer serializer = AttributeSerializer.builder().codec(codec).build();

    assertThatThrownBy(() -> serializer.serialize(new Point(1, 2, "a")))
        .isInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining("class io.lazysession.serializer.fixtures.Point is outside the allow-list")
        .hasMessageContaining("lazysession.allowed-packages=io.lazysession.serializer.fixtures")
        .hasMessageContaining("lazysession.allow-list-mode=audit")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("if it is yours"));
  }

  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void deserialize_auditMode_decodesOutsideClassesAndListsThemOnce(CodecKind codec) {
    AttributeSerializer writer = AttributeSerializer.builder().codec(codec)
        .allowList(ClassAllowList.builder().allowPackage("io.lazysession.serializer.fixtures").build())
        .build();
    ClassAllowList audit = ClassAllowList.builder().mode(ClassAllowList.Mode.AUDIT).build();
    AttributeSerializer reader = writer.toBuilder().allowList(audit).build();
    byte[] envelope = writer.serialize(List.of(new Point(1, 2, "a"), new Point[] {new Point(3, 4, "b")}));

    Object first = reader.deserialize(envelope);
    reader.deserialize(envelope);

    assertThat(((List<?>) first).get(0)).isEqualTo(new Point(1, 2, "a"));
    assertThat(audit.outsideClasses()).containsExactly(Point.class.getName());
    assertThat(audit.outsidePropertyLine())
        .isEqualTo("lazysession.allowed-packages=io.lazysession.serializer.fixtures");
    assertThat(ClassAllowList.jdkOnly().outsideClasses()).isEmpty();
  }

  /**
   * A platform class outside the list (java.*, javax.*, sun.*: a java.util.regex.Pattern, a client
   * certificate) is refused in audit mode too, so its refusal must not send the user to audit mode
   * as what "lists every class your sessions need without refusing them": they set it, and get the
   * same refusal.
   */
  @ParameterizedTest
  @EnumSource(CodecKind.class)
  void serialize_platformClassInAuditMode_refusalDoesNotAdviseAuditMode(CodecKind codec) {
    AttributeSerializer serializer = AttributeSerializer.builder().codec(codec)
        .allowList(ClassAllowList.builder().mode(ClassAllowList.Mode.AUDIT).build()).build();

    assertThatThrownBy(() -> serializer.serialize(java.util.regex.Pattern.compile("a+")))
        .isInstanceOf(ClassNotAllowedException.class)
        .hasMessageContaining("lazysession.allowed-packages=java.util.regex")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("without refusing them"));
  }

  static Stream<String> neverLetThrough() {
    return Stream.of("java.net.URL", "java.lang.ProcessBuilder", "javax.management.BadAttributeValueExpException",
        "com.sun.org.apache.xalan.internal.xsltc.trax.TemplatesImpl", "sun.misc.Unsafe",
        "java.lang.reflect.Proxy");
  }

  @ParameterizedTest
  @MethodSource("neverLetThrough")
  void isAllowed_auditMode_stillRefusesWhatNoSessionNeeds(String className) {
    ClassAllowList audit = ClassAllowList.builder().mode(ClassAllowList.Mode.AUDIT).build();

    assertThat(audit.isAllowed(className)).isFalse();
    assertThat(audit.outsideClasses()).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "[B|byte[]", "[[Ljava.lang.String;|java.lang.String[][]", "[I|int[]",
      "java.util.Map$Entry|java.util.Map$Entry", "[X|[X"})
  void ofBinaryName_descriptor_readsAsSource(String binary, String source) {
    assertThat(TypeNames.ofBinaryName(binary)).isEqualTo(source);
  }

  @ParameterizedTest
  @CsvSource({"enforce, ENFORCE", "AUDIT, AUDIT", "' audit ', AUDIT"})
  void modeFromProperty_value_parsed(String value, ClassAllowList.Mode mode) {
    assertThat(ClassAllowList.Mode.fromProperty(value)).isEqualTo(mode);
  }

  @org.junit.jupiter.api.Test
  void modeFromProperty_unknown_namesThePropertyAndTheValues() {
    assertThatThrownBy(() -> ClassAllowList.Mode.fromProperty("warn"))
        .hasMessage("lazysession.allow-list-mode must be 'enforce' or 'audit', was 'warn'");
  }
}
