package io.changestream.alerts.destination;

import io.changestream.runtime.Stages;
import java.util.concurrent.CompletableFuture;
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
                out.completeExceptionally(Stages.unwrap(error));
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

    /** What a cancel of the interruptible call running on this thread closes (see {@link #closeOnCancel}). */
    private static final ThreadLocal<Closers> RUNNING = new ThreadLocal<>();

    /** The resources one interruptible call registered; closed once when it is cancelled. */
    private static final class Closers {
        private final java.util.List<AutoCloseable> resources = new java.util.concurrent.CopyOnWriteArrayList<>();
        private volatile boolean cancelled;

        void add(AutoCloseable resource) {
            resources.add(resource);
            if (cancelled) {
                closeQuietly(resource); // cancelled while it was being opened
            }
        }

        void cancel() {
            cancelled = true;
            resources.forEach(Cancellation::closeQuietly);
        }
    }

    private static void closeQuietly(AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception e) {
            // closing to abort: the blocked call fails with it, which is the point
        }
    }

    /**
     * Runs a blocking call on {@code executor}; cancelling the returned future closes what the call registered with
     * {@link #closeOnCancel} (a socket blocked in a read ignores interrupts) and interrupts the thread running it (a
     * waiting HTTP send then aborts its exchange). A refused submission throws at once.
     */
    public static <T> CompletableFuture<T> supplyInterruptibly(Supplier<T> call, Executor executor) {
        CompletableFuture<T> out = new CompletableFuture<>();
        Closers closers = new Closers();
        FutureTask<Void> task = new FutureTask<>(() -> {
            RUNNING.set(closers);
            try {
                out.complete(call.get());
            } catch (RuntimeException | Error e) {
                out.completeExceptionally(e);
            } finally {
                RUNNING.remove();
            }
            return null;
        });
        executor.execute(task);
        out.whenComplete((r, e) -> {
            if (out.isCancelled()) {
                closers.cancel();
                task.cancel(true);
            }
        });
        return out;
    }

    /**
     * Registers a resource of the blocking call running on this thread (inside {@link #supplyInterruptibly}) to be
     * closed when that call is cancelled — a socket, so a call blocked reading it ends at once. Outside such a call it
     * does nothing. Returns the resource.
     */
    public static <R extends AutoCloseable> R closeOnCancel(R resource) {
        Closers closers = RUNNING.get();
        if (closers != null) {
            closers.add(resource);
        }
        return resource;
    }

    /** Completes {@code into} as {@code from} completes. */
    static <T> void complete(CompletionStage<? extends T> from, CompletableFuture<T> into) {
        from.whenComplete((value, error) -> {
            if (error != null) {
                into.completeExceptionally(Stages.unwrap(error));
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
}
