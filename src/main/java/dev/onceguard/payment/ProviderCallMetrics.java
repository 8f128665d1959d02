package dev.onceguard.payment;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onceguard.payment.provider.CreatePayment;
import dev.onceguard.payment.provider.CreateRefund;
import dev.onceguard.payment.provider.ProviderRefund;
import dev.onceguard.payment.provider.PaymentProvider;
import dev.onceguard.payment.provider.ProviderEvent;
import dev.onceguard.payment.provider.ProviderOutcomeUnknown;
import dev.onceguard.payment.provider.ProviderPayment;
import dev.onceguard.payment.provider.ProviderStatus;
import dev.onceguard.payment.provider.ReadBackFailed;
import dev.onceguard.payment.provider.WebhookRejected;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The client side of every provider call: {@code onceguard.provider.call.duration{provider,call}} (a latency
 * histogram) and {@code onceguard.provider.calls{provider,call,outcome}}, where the outcome is the status the
 * provider answered ({@code succeeded}, {@code pending}, {@code requires_action}, {@code failed}, {@code canceled}),
 * {@code unknown} (timeout, 5xx, broken connection) or {@code error} (an answer the adapter could not use); refund calls
 * ({@code refund}, {@code find_refund}) are labelled with the refund's status, or {@code not_found}; a call whose
 * answer is not a payment's status (a notification's read-back, the list of an order's payments a payment attempt asks
 * for, {@code payments_of_order}) is {@code answered} when it got one.
 */
@ApplicationScoped
public class ProviderCallMetrics {

    static final String CREATE = "create";
    static final String RETRIEVE = "retrieve";
    static final String REFUND = "refund";
    static final String FIND_REFUND = "find_refund";
    static final String PAYMENTS_OF_ORDER = "payments_of_order";
    static final String UNKNOWN = "unknown";
    static final String ERROR = "error";
    static final String ANSWERED = "answered";

    @FunctionalInterface
    public interface ObjectCall<T> {
        T run() throws ProviderOutcomeUnknown;
    }

    private final MeterRegistry registry;

    public ProviderCallMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** The adapter with its create and retrieve calls measured. */
    PaymentProvider measured(PaymentProvider adapter) {
        return new Measured(adapter, this);
    }

    /** Measures a call, its outcome named by {@code outcomeOf} from the answer. */
    <T> T measure(String provider, String call, ObjectCall<T> body, Function<T, String> outcomeOf)
            throws ProviderOutcomeUnknown {
        Timer.Sample sample = Timer.start(registry);
        String outcome = ERROR;
        try {
            T answer = body.run();
            outcome = outcomeOf.apply(answer).toLowerCase(Locale.ROOT);
            return answer;
        } catch (ProviderOutcomeUnknown e) {
            outcome = UNKNOWN;
            throw e;
        } finally {
            sample.stop(timer(provider, call));
            counter(provider, call, outcome).increment();
        }
    }

    /** Measures a call an adapter makes on its own (a read-back), under the same two meters as every other call. */
    public <T> T measureObject(String provider, String call, ObjectCall<T> body) throws ProviderOutcomeUnknown {
        return measure(provider, call, body, answer -> ANSWERED);
    }

    /** Every series of the enabled providers at zero, so that their dashboard panels and alerts never meet none. */
    void registerAtStartUp(@Observes StartupEvent start, Instance<PaymentProvider> adapters) {
        adapters.stream().filter(PaymentProvider::enabled).forEach(adapter -> {
            for (String call : List.of(CREATE, RETRIEVE)) {
                timer(adapter.name(), call);
                for (ProviderStatus status : ProviderStatus.values()) {
                    counter(adapter.name(), call, status.name().toLowerCase(Locale.ROOT));
                }
                counter(adapter.name(), call, UNKNOWN);
                counter(adapter.name(), call, ERROR);
            }
        });
    }

    private Timer timer(String provider, String call) {
        return Timer.builder("onceguard.provider.call.duration")
                .description("Duration of calls to a payment provider, as onceguard's client measures them")
                .tag("provider", provider).tag("call", call)
                .publishPercentileHistogram()
                .register(registry);
    }

    private Counter counter(String provider, String call, String outcome) {
        return Counter.builder("onceguard.provider.calls")
                .description("Calls to a payment provider by what came of them")
                .tag("provider", provider).tag("call", call).tag("outcome", outcome)
                .register(registry);
    }

    private record Measured(PaymentProvider adapter, ProviderCallMetrics metrics) implements PaymentProvider {

        @Override
        public String name() {
            return adapter.name();
        }

        @Override
        public boolean enabled() {
            return adapter.enabled();
        }

        @Override
        public ProviderPayment create(CreatePayment command) throws ProviderOutcomeUnknown {
            return metrics.measure(adapter.name(), CREATE, () -> adapter.create(command),
                    answer -> answer.status().name());
        }

        @Override
        public ProviderPayment retrieve(String providerPaymentId) throws ProviderOutcomeUnknown {
            return metrics.measure(adapter.name(), RETRIEVE, () -> adapter.retrieve(providerPaymentId),
                    answer -> answer.status().name());
        }

        @Override
        public ProviderRefund refund(CreateRefund command) throws ProviderOutcomeUnknown {
            return metrics.measure(adapter.name(), REFUND, () -> adapter.refund(command),
                    answer -> answer.status().name());
        }

        @Override
        public Optional<ProviderRefund> findRefund(String providerPaymentId, String refundId)
                throws ProviderOutcomeUnknown {
            return metrics.measure(adapter.name(), FIND_REFUND, () -> adapter.findRefund(providerPaymentId, refundId),
                    answer -> answer.map(found -> found.status().name()).orElse("not_found"));
        }

        @Override
        public List<ProviderPayment> paymentsOfOrder(String orderId) throws ProviderOutcomeUnknown {
            return metrics.measureObject(adapter.name(), PAYMENTS_OF_ORDER, () -> adapter.paymentsOfOrder(orderId));
        }

        @Override
        public void verifyWebhook(byte[] body, Map<String, String> headers) throws WebhookRejected {
            adapter.verifyWebhook(body, headers);
        }

        @Override
        public void verifySource(String sourceAddress) throws WebhookRejected {
            adapter.verifySource(sourceAddress);
        }

        @Override
        public byte[] readBack(byte[] body, String sourceAddress) throws ReadBackFailed {
            return adapter.readBack(body, sourceAddress);
        }

        @Override
        public boolean readsBack() {
            return adapter.readsBack();
        }

        @Override
        public ProviderEvent parseEvent(JsonNode event) throws WebhookRejected {
            return adapter.parseEvent(event);
        }
    }
}
