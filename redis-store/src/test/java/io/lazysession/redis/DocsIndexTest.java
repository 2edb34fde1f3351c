package io.lazysession.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** docs/README.md, the index of the documentation, lists each page of docs/ once. */
class DocsIndexTest {
  private static final Path DOCS = Path.of("..", "docs");
  private static final Pattern ROW = Pattern.compile("(?m)^\\| \\[([^]]+\\.md)]\\(");

  @Test
  void docsIndex_listsEveryPageOnce() throws IOException {
    List<String> listed = new ArrayList<>();
    Matcher row = ROW.matcher(Files.readString(DOCS.resolve("README.md")));
    while (row.find()) {
      listed.add(row.group(1));
    }
    List<String> pages;
    try (Stream<Path> files = Files.list(DOCS)) {
      pages = files.map(file -> file.getFileName().toString())
          .filter(name -> name.endsWith(".md") && !name.equals("README.md")).sorted().toList();
    }

    assertThat(listed).as("pages listed in docs/README.md").doesNotHaveDuplicates();
    assertThat(listed).as("pages listed in docs/README.md").containsExactlyInAnyOrderElementsOf(pages);
  }
}
