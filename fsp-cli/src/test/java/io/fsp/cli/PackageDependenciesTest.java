package io.fsp.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.fsp.cli.demo.LoopbackSetup;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The program's packages form no cycle, and the demo's loopback setup, which the benchmarks start too, knows nothing
 * of the commands; read from this module's compiled classes (the cycle rule is every module's; fsp-common's
 * {@code PackageCycleRuleTest} shows that it catches a cycle).
 */
class PackageDependenciesTest {
    private static JavaClasses classes;

    @BeforeAll
    static void read() {
        classes = new ClassFileImporter().importPath(Path.of("target/classes"));
        assertTrue(classes.contain(FspCli.class) && classes.contain(LoopbackSetup.class),
                "the module's classes were read");
    }

    @Test
    void packagesFormNoCycle() {
        slices().matching("io.fsp.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void theDemoSetupUsesNothingOfTheCommands() {
        assertTrue(classes.get(DemoCommand.class).getDirectDependenciesFromSelf().stream()
                .anyMatch(d -> d.getTargetClass().getPackageName().equals("io.fsp.cli.demo")),
                "the demo command drives the setup");
        noClasses().that().resideInAPackage("io.fsp.cli.demo..")
                .should().dependOnClassesThat().resideInAPackage("io.fsp.cli")
                .check(classes);
    }
}
