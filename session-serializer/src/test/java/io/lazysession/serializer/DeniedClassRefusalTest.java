package io.lazysession.serializer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A class that no setting allows (a denied JDK class such as java.lang.Thread, or java.net.URL by
 * name) must not be refused with advice to set lazysession.allowed-packages, saying "only this
 * property allows it": java.lang is allowed already, and the property cannot allow Thread.
 */
class DeniedClassRefusalTest {
  @Test
  void refusal_deniedJdkClass_doesNotClaimThePropertyAllowsIt() {
    String message = new ClassNotAllowedException("java.lang.Thread").getMessage();

    ClassAllowList withJavaLang = ClassAllowList.builder().allowPackages(java.util.List.of("java.lang"))
        .build();
    assertThat(withJavaLang.isAllowed("java.lang.Thread")).as("the advice does not help").isFalse();
    assertThat(message).doesNotContain("only this property allows it");
  }
}
