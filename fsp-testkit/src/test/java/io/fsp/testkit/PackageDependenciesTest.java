package io.fsp.testkit;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.fsp.testkit.meridian.EmulatedLatency;
import io.fsp.testkit.meridian.sim.MeridianSimulation;
import io.fsp.testkit.relay.FaultPlan;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The test support's packages form no cycle, read from this module's compiled classes (the rule of every module;
 * fsp-common's {@code PackageCycleRuleTest} shows that it catches a cycle).
 */
class PackageDependenciesTest {
    @Test
    void packagesFormNoCycle() {
        JavaClasses classes = new ClassFileImporter().importPath(Path.of("target/classes"));
        assertTrue(classes.contain(FaultPlan.class) && classes.contain(EmulatedLatency.class)
                && classes.contain(MeridianSimulation.class),
                "the module's classes were read");
        slices().matching("io.fsp.(**)").should().beFreeOfCycles().check(classes);
    }
}
