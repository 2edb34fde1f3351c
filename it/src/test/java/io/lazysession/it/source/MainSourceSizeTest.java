package io.lazysession.it.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every main source file of the project stays at or under {@value #MAX_LINES} lines (the fifth
 * target of performance round 3, docs/benchmarks/round-11.md): a class that outgrows it is split by what
 * its parts do, not left to grow. Reads the sibling modules' sources from this module's directory.
 */
class MainSourceSizeTest {
  static final int MAX_LINES = 450;
  static final List<String> MODULES = List.of("session-serializer", "redis-store", "sample-webapp");

  @Test
  void everyMainSourceFile_isAtMost450Lines() throws IOException {
    List<String> over = new ArrayList<>();
    int files = 0;
    for (String module : MODULES) {
      Path sources = Path.of("..", module, "src", "main", "java");
      assertThat(sources).as("sources of " + module).isDirectory();
      try (Stream<Path> paths = Files.walk(sources)) {
        for (Path file : paths.filter(path -> path.toString().endsWith(".java")).toList()) {
          files++;
          long lines;
          try (Stream<String> text = Files.lines(file)) {
            lines = text.count();
          }
          if (lines > MAX_LINES) {
            over.add(file + ": " + lines + " lines");
          }
        }
      }
    }
    assertThat(files).as("main source files found").isGreaterThan(100);
    assertThat(over).as("main source files over " + MAX_LINES + " lines").isEmpty();
  }
}
