package io.lazysession.it.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * What the release build publishes (docs/releasing.md) stays consistent as modules come and go: the
 * BOM manages exactly the jar modules that are deployed, and each of them names its module for the
 * module path after a package it holds. Reads the POMs from this module's directory.
 */
class PublishedModulesTest {

  @Test
  void bom_managesEveryPublishedModule_atTheProjectVersion() throws Exception {
    List<String> published = publishedJarModules();
    assertThat(published).contains("session-serializer", "redis-store");

    Element management = first(parse(Path.of("..", "bom", "pom.xml")), "dependencyManagement");
    assertThat(management).as("dependencyManagement of bom/pom.xml").isNotNull();
    List<String> managed = texts(management.getElementsByTagName("artifactId"));
    assertThat(managed).as("modules the BOM manages").containsExactlyInAnyOrderElementsOf(published);
    assertThat(texts(management.getElementsByTagName("version")))
        .as("versions in the BOM")
        .containsOnly("${project.version}");
  }

  @Test
  void publishedJar_declaresAutomaticModuleName_ofAPackageItHolds() throws Exception {
    List<String> names = new ArrayList<>();
    for (String module : publishedJarModules()) {
      Element name = first(parse(Path.of("..", module, "pom.xml")), "Automatic-Module-Name");
      assertThat(name).as("Automatic-Module-Name in " + module + "/pom.xml").isNotNull();
      String moduleName = name.getTextContent().trim();
      assertThat(Path.of("..", module, "src", "main", "java", moduleName.replace('.', '/')))
          .as("package of the module name " + moduleName + " in " + module)
          .isDirectory();
      names.add(moduleName);
    }
    assertThat(names).doesNotHaveDuplicates();
  }

  /** The root POM's jar modules that do not set {@code maven.deploy.skip}. */
  private static List<String> publishedJarModules() throws Exception {
    List<String> published = new ArrayList<>();
    for (String module : texts(parse(Path.of("..", "pom.xml")).getElementsByTagName("module"))) {
      Document pom = parse(Path.of("..", module, "pom.xml"));
      Element packaging = first(pom, "packaging");
      boolean jar = packaging == null || packaging.getTextContent().trim().equals("jar");
      Element skip = first(pom, "maven.deploy.skip");
      if (jar && (skip == null || !skip.getTextContent().trim().equals("true"))) {
        published.add(module);
      }
    }
    return published;
  }

  private static Document parse(Path pom) throws Exception {
    assertThat(pom).isRegularFile();
    try (var in = Files.newInputStream(pom)) {
      return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in);
    }
  }

  private static Element first(Document pom, String tag) {
    return (Element) pom.getElementsByTagName(tag).item(0);
  }

  private static List<String> texts(NodeList nodes) {
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < nodes.getLength(); i++) {
      texts.add(nodes.item(i).getTextContent().trim());
    }
    return texts;
  }
}
