package io.fsp;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import io.fsp.meridian.MeridianNode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * No package of fsp-common reaches itself through the packages it uses. Read from the compiled classes of this
 * module ({@code target/classes}), so every use counts (a field, a call, a thrown type), not only imports. Every
 * module has this test with the same rule; {@link PackageCycleRuleTest} shows that the rule catches a cycle.
 */
class PackageDependenciesTest {
    /** Each package under {@code io.fsp} is a slice of its own: a cycle between any of them fails. */
    static final ArchRule NO_CYCLES = slices().matching("io.fsp.(**)").should().beFreeOfCycles();

    @Test
    void packagesFormNoCycle() {
        NO_CYCLES.check(classes());
    }

    /** The client library's class path carries no command line parser: that is the programs' (fsp-options). */
    @Test
    void nothingUsesPicocli() {
        noClasses().should().dependOnClassesThat().resideInAPackage("picocli..").check(classes());
    }

    private static JavaClasses classes() {
        JavaClasses classes = new ClassFileImporter().importPath(Path.of("target/classes"));
        assertTrue(classes.contain(MeridianNode.class), "the module's classes were read");
        return classes;
    }
}
