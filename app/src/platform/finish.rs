//! Work a request starts that must finish even if the request does not: run in the request's own task, and
//! handed to the runtime as a task of its own only if the request is dropped half-way.
//!
//! `tokio::spawn` + `.await` gives the same guarantee, but every call then pays for a second task: its
//! allocation, its scheduling (often a wake of another worker thread) and a wake back to the request when
//! it ends — 4 % of a grab's instructions (callgrind), for a hand-over needed only when a client goes away.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

/// `work`, to be awaited where it is needed; if the awaiting future is dropped before `work` ended, the
/// rest of `work` goes on as a task of its own (its output then unread, so `work` must settle its own
/// outcome). A panic inside it is answered as [`Panicked`], as a spawned task's would be as a `JoinError`.
pub fn finish<F>(work: F) -> Finish<F>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    Finish { work: Some(Box::pin(work)) }
}

/// The future of [`finish`].
pub struct Finish<F>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    /// `None` once it ended (or panicked): nothing is left to hand over.
    work: Option<Pin<Box<F>>>,
}

/// The work panicked; the message, when the panic had one.
#[derive(Debug, thiserror::Error)]
#[error("the work panicked: {0}")]
pub struct Panicked(pub String);

impl Panicked {
    fn from_payload(payload: Box<dyn Any + Send>) -> Self {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Self(message)
    }
}

impl<F> Future for Finish<F>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    type Output = Result<F::Output, Panicked>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // `Finish` is `Unpin` (the work is boxed), so its field can be reached through the pin.
        let Some(work) = self.work.as_mut() else {
            return Poll::Ready(Err(Panicked("polled after it ended".into())));
        };
        match catch_unwind(AssertUnwindSafe(|| work.as_mut().poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(out)) => {
                self.work = None;
                Poll::Ready(Ok(out))
            }
            Err(payload) => {
                self.work = None;
                Poll::Ready(Err(Panicked::from_payload(payload)))
            }
        }
    }
}

impl<F> Drop for Finish<F>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn drop(&mut self) {
        let Some(rest) = self.work.take() else { return };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn(rest)),
            // Outside a runtime nothing could poll it; the work's own recovery (a sweeper) takes over.
            Err(_) => tracing::error!("unfinished work dropped outside the runtime"),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    use super::*;

    /// The guarantee a grab's send depends on: the client hanging up half-way does not stop the work.
    #[tokio::test]
    async fn work_goes_on_after_its_caller_is_dropped() {
        let done = Arc::new(AtomicBool::new(false));
        let (go, wait) = tokio::sync::oneshot::channel::<()>();
        let work = finish({
            let done = done.clone();
            async move {
                let _ = wait.await;
                done.store(true, Ordering::SeqCst);
            }
        });
        // The caller gives up while the work waits, as a request does when its client goes away.
        let caller = tokio::time::timeout(Duration::from_millis(20), work).await;
        assert!(caller.is_err(), "the work cannot have ended: it was not let go");
        assert!(!done.load(Ordering::SeqCst));
        go.send(()).expect("the work is still there to hear it");
        tokio::time::timeout(Duration::from_secs(5), async {
            while !done.load(Ordering::SeqCst) {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .expect("the work finished on its own after its caller was dropped");
    }

    #[tokio::test]
    async fn answers_the_works_output_and_a_panic_as_an_error() {
        assert_eq!(finish(async { 7 }).await.expect("no panic"), 7);
        let panicked = finish(async { panic!("broker gone") }).await.expect_err("it panicked");
        assert_eq!(panicked.0, "broker gone");
    }
}
