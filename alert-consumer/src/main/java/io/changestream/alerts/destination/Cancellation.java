package io.changestream.alerts.destination;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Stage composition that carries a cancel down to the work, so that cancelling a delivery (processing timeout,
 * partition release, shutdown, a shed request) aborts its HTTP exchange or interrupts its blocking call instead of
 * only completing a derived future while the request keeps running. {@link CompletableFuture#thenCompose} and
 * {@code whenComplete} return new futures whose {@code cancel} never reaches the stage they came from: every step of
 * the delivery path that derives a future uses these instead. Stateless; any thread.
 */
public final class Cancellation {

    private Cancellation() {
    }

    /**
     * {@code first.thenCompose(next)} where cancelling the result cancels {@code first} while it runs, then the stage
     * {@code next} returned. {@code next} is not called once the result is done.
     */
    public static <A, B> CompletableFuture<B> thenCompose(CompletionStage<A> first,
                                                          Function<? super A, ? extends CompletionStage<B>> next) {
        CompletableFuture<B> out = new CompletableFuture<>();
        AtomicReference<CompletableFuture<?>> current = new AtomicReference<>(first.toCompletableFuture());
        first.whenComplete((a, error) -> {
            if (error != null) {
                out.completeExceptionally(unwrap(error));
                return;
            }
            if (out.isDone()) {
                return;
            }
            CompletableFuture<B> second;
            try {
                second = next.apply(a).toCompletableFuture();
            } catch (RuntimeException | Error e) {
                out.completeExceptionally(e);
                return;
            }
            current.set(second);
            if (out.isCancelled()) {
                second.cancel(true);
                return;
            }
            complete(second, out);
        });
        cancelWith(out, () -> current.get());
        return out;
    }

    /** Makes cancelling {@code derived} cancel {@code source}; returns {@code derived}. */
    public static <T> CompletableFuture<T> forward(CompletableFuture<T> derived, CompletionStage<?> source) {
        CompletableFuture<?> from = source.toCompletableFuture();
        cancelWith(derived, () -> from);
        return derived;
    }

    /**
     * Runs a blocking call on {@code executor}; cancelling the returned future interrupts the thread running it (a
     * waiting HTTP send then aborts its exchange). A refused submission throws at once.
     */
    public static <T> CompletableFuture<T> supplyInterruptibly(Supplier<T> call, Executor executor) {
        CompletableFuture<T> out = new CompletableFuture<>();
        FutureTask<Void> task = new FutureTask<>(() -> {
            try {
                out.complete(call.get());
            } catch (RuntimeException | Error e) {
                out.completeExceptionally(e);
            }
            return null;
        });
        executor.execute(task);
        out.whenComplete((r, e) -> {
            if (out.isCancelled()) {
                task.cancel(true);
            }
        });
        return out;
    }

    /** Completes {@code into} as {@code from} completes. */
    static <T> void complete(CompletionStage<? extends T> from, CompletableFuture<T> into) {
        from.whenComplete((value, error) -> {
            if (error != null) {
                into.completeExceptionally(unwrap(error));
            } else {
                into.complete(value);
            }
        });
    }

    private static void cancelWith(CompletableFuture<?> future, Supplier<CompletableFuture<?>> target) {
        future.whenComplete((r, e) -> {
            if (future.isCancelled()) {
                CompletableFuture<?> running = target.get();
                if (running != null) {
                    running.cancel(true);
                }
            }
        });
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }
}
