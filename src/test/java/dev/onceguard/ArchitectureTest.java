package dev.onceguard;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaConstructor;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.NetworkChannel;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Clock;
import java.time.temporal.Temporal;
import java.util.Arrays;
import java.util.Date;
import java.util.Set;
import java.util.Timer;
import java.util.concurrent.Executor;
import java.util.random.RandomGenerator;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noFields;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/** Rules about the shape of the application's classes (tests excluded), checked on every test run. */
@AnalyzeClasses(packages = "dev.onceguard", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    /*
     * A Quarkus native build initializes the application's classes at build time and stores their static fields in
     * the executable. A random source there would hand every process the same seed (the builder refuses it), a thread,
     * executor or socket cannot survive the trip, and a time read then is the build's time, not the process's.
     * Such things belong to beans or to the method that uses them.
     */

    @ArchTest
    static final ArchRule theEngineDependsOnNoCapability = noClasses()
            .that().resideInAPackage("dev.onceguard.idempotency..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.onceguard.checkout..", "dev.onceguard.payment..",
                    "dev.onceguard.sandbox..", "dev.onceguard.webhook..", "dev.onceguard.outbox..",
                    "dev.onceguard.fulfilment..", "dev.onceguard.maintenance..", "dev.onceguard.orderdetails..",
                    "dev.onceguard.console..")
            .because("operations use the idempotency engine, never the other way round");

    /*
     * One slice per capability: the first package below dev.onceguard, sub-packages included, so payment.provider,
     * payment.sandbox and payment.stripe are all "payment" and platform.embedded is "platform". A cycle between two
     * capabilities, through any of their sub-packages, fails; dependencies inside one capability are its own affair.
     */
    @ArchTest
    static final ArchRule capabilitiesAreFreeOfCycles = slices()
            .matching("dev.onceguard.(*)..")
            .should().beFreeOfCycles()
            .because("each capability builds on the ones below it, never on one that builds on it");

    @ArchTest
    static final ArchRule maintenanceJobsResumeOperationsOnlyThroughTheEngine = noClasses()
            .that().resideInAPackage("dev.onceguard.maintenance..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.onceguard.checkout..", "dev.onceguard.payment..",
                    "dev.onceguard.sandbox..", "dev.onceguard.webhook..", "dev.onceguard.fulfilment..",
                    "dev.onceguard.orderdetails..", "dev.onceguard.console..")
            .because("lease recovery hands every expired record to the engine's resume entry point, which the "
                    + "operations register with; a job naming an operation would close a cycle with it");

    /*
     * A table name lives in a class's constant pool (a string or text block), where ArchUnit's model does not look,
     * so the rule reads the class file itself.
     */
    @ArchTest
    static final ArchRule onlyTheEngineNamesItsRecordsTable = noClasses()
            .that().resideOutsideOfPackage("dev.onceguard.idempotency..")
            .should(nameInTheirConstants("idempotency_records"))
            .because("every read and write of the idempotency records goes through the engine's store");

    /*
     * The engine's store binds its claims itself on the hot path (see PostgresIdempotencyStore); every other statement
     * goes through SqlRows, so binding, timeouts and error messages are decided in one place.
     */
    private static final Set<String> STATEMENT_RUNNERS = Set.of("dev.onceguard.platform.SqlRows",
            "dev.onceguard.idempotency.PostgresIdempotencyStore", "dev.onceguard.idempotency.RequestLogWrites");

    @ArchTest
    static final ArchRule statementsRunOnlyThroughSqlRows = noClasses()
            .that(DescribedPredicate.describe("are not SqlRows or the engine's store",
                    (JavaClass owner) -> !STATEMENT_RUNNERS.contains(owner.getName().split("\\$")[0])))
            .should().dependOnClassesThat().belongToAnyOf(Statement.class, PreparedStatement.class)
            .orShould().callMethodWhere(DescribedPredicate.describe("a native query is created",
                    (JavaMethodCall call) -> call.getName().equals("createNativeQuery")))
            .because("plain SQL goes through platform.SqlRows; the engine's store is the one other data-access style");

    @ArchTest
    static final ArchRule resourceClassesAreRegisteredForReflection = classes()
            .that().areAnnotatedWith(jakarta.ws.rs.Path.class).and().areNotInterfaces()
            .should().beAnnotatedWith(io.quarkus.runtime.annotations.RegisterForReflection.class)
            .because("AllowedMethods reads the resource methods' annotations for the Allow header of a 405, and a "
                    + "native executable keeps a class's methods for reflection only when it is registered");

    @ArchTest
    static final ArchRule noStaticFieldHoldsARandomSourceAThreadOrASocket = noFields()
            .that().areStatic()
            .should().haveRawType(assignableTo(RandomGenerator.class)
                    .or(assignableTo(Thread.class))
                    .or(assignableTo(Executor.class))
                    .or(assignableTo(Timer.class))
                    .or(assignableTo(Socket.class))
                    .or(assignableTo(ServerSocket.class))
                    .or(assignableTo(DatagramSocket.class))
                    .or(assignableTo(NetworkChannel.class))
                    .as("a random source, a thread, an executor, a timer or a socket"))
            .because("a native build would capture it at build time; create it in a bean or where it is used");

    @ArchTest
    static final ArchRule noStaticInitializerReadsTheClock = classes()
            .should(notReadTheClockWhenInitialized())
            .because("a native build runs static initializers at build time, so the reading would be the build's");

    private static final Set<String> CLOCK_READS_OF_SYSTEM = Set.of("currentTimeMillis", "nanoTime");
    private static final Set<String> CLOCK_READS_OF_CLOCK = Set.of("millis", "instant");

    private static ArchCondition<JavaClass> notReadTheClockWhenInitialized() {
        return new ArchCondition<>("not read the clock in a static initializer") {
            @Override
            public void check(JavaClass javaClass, ConditionEvents events) {
                javaClass.getStaticInitializer().map(JavaCodeUnit::getCallsFromSelf).stream()
                        .flatMap(Set::stream)
                        .filter(ArchitectureTest::readsTheClock)
                        .forEach(call -> events.add(SimpleConditionEvent.violated(javaClass, call.getDescription())));
            }
        };
    }

    private static ArchCondition<JavaClass> nameInTheirConstants(String name) {
        byte[] wanted = name.getBytes(StandardCharsets.UTF_8);
        return new ArchCondition<>("name " + name + " in their constants") {
            @Override
            public void check(JavaClass javaClass, ConditionEvents events) {
                if (contains(classFileOf(javaClass), wanted)) {
                    events.add(SimpleConditionEvent.satisfied(javaClass, javaClass.getName() + " names " + name));
                }
            }
        };
    }

    private static byte[] classFileOf(JavaClass javaClass) {
        String resource = javaClass.getName().replace('.', '/') + ".class";
        try (InputStream in = ArchitectureTest.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no class file for " + javaClass.getName());
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean contains(byte[] bytes, byte[] wanted) {
        for (int i = 0; i + wanted.length <= bytes.length; i++) {
            if (Arrays.equals(bytes, i, i + wanted.length, wanted, 0, wanted.length)) {
                return true;
            }
        }
        return false;
    }

    private static boolean readsTheClock(JavaCall<?> call) {
        JavaClass owner = call.getTargetOwner();
        String name = call.getName();
        return owner.isEquivalentTo(System.class) && CLOCK_READS_OF_SYSTEM.contains(name)
                || owner.isAssignableTo(Clock.class) && CLOCK_READS_OF_CLOCK.contains(name)
                || owner.isAssignableTo(Temporal.class) && name.equals("now")
                || owner.isEquivalentTo(Date.class) && call.getTarget().getRawParameterTypes().isEmpty()
                && name.equals(JavaConstructor.CONSTRUCTOR_NAME);
    }
}
