package io.fsp.block;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RelativePathsTest {

    @ParameterizedTest
    @ValueSource(strings = {"a", "data/x.bin", "dir/sub/file.tar.gz", ".hidden", "a/..b", "a/b..", "...", "名前/ファイル.txt",
        "emoji-\uD83D\uDE00", "ab:c", "x/C:y", "with space/and,comma"})
    void acceptsRelativeNormalisedNames(String name) {
        assertNull(RelativePaths.problem(name));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "/etc/passwd", "//server/share", "..", "../x", "a/../b", "a/..", ".", "./a", "a/./b", "a//b",
        "a/", "a\\b", "..\\..\\x", "C:x", "c:/windows", "Z:", "a:b", "a\u0000b", "a\nb", "a\u007fb", "a\uD800b", "a\uDC00"})
    void rejectsUnsafeNames(String name) {
        String problem = RelativePaths.problem(name);
        assertNotNull(problem, name);
        assertTrue(problem.contains("expected:"), problem);
    }

    @ParameterizedTest
    @ValueSource(strings = {"a\u0000b"})
    void errorMessagesEscapeControlCharacters(String name) {
        assertEquals("name \"a\\u0000b\" contains control character 0 (expected: none)", RelativePaths.problem(name));
    }

    @ParameterizedTest
    @ValueSource(strings = {"/etc/passwd", "../x", "a\\b", "C:x", "a\u0000b", "a\uD800b"})
    void theReasonIsTheProblemWithoutTheName(String name) {
        String reason = RelativePaths.reason(name);
        assertNotNull(reason, name);
        assertTrue(RelativePaths.problem(name).endsWith("\" " + reason), RelativePaths.problem(name));
        assertNull(RelativePaths.reason("data/x.bin"));
        assertEquals("is empty (expected: a relative path)", RelativePaths.reason(""));
    }
}
