//! A body passed on frame by frame, unchanged, while a [`Sink`] sees each chunk: how the
//! HTTP proxy reads what it forwards without holding it. The sink keeps what the tape
//! needs within a bound; the bytes themselves go on whatever their size (a huge body or an
//! endless event stream is forwarded, never kept whole).

use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll};

use axum::body::{Bytes, HttpBody};
use http_body::{Frame, SizeHint};

/// What sees the bytes of a body as they pass.
pub trait Sink: Send + Sync + 'static {
    /// A chunk passed on.
    fn chunk(&mut self, bytes: &[u8]);
    /// The body ended; `complete` when every byte was passed on (not cut by an error or
    /// by the reader going away). Called once.
    fn end(&mut self, complete: bool);
}

/// `inner`, passed on unchanged, with `sink` told of every chunk.
pub struct Tap<B> {
    /// Behind a lock only to be `Sync` (reqwest asks it of a request body); polling takes
    /// it by `get_mut`, without locking.
    inner: Mutex<B>,
    sink: Option<Box<dyn Sink>>,
}

impl<B> Tap<B> {
    /// `inner` with `sink` watching it (`None`: passed on as is).
    pub fn new(inner: B, sink: Option<Box<dyn Sink>>) -> Tap<B> {
        Tap {
            inner: Mutex::new(inner),
            sink,
        }
    }
}

fn finish(sink: &mut Option<Box<dyn Sink>>, complete: bool) {
    if let Some(mut s) = sink.take() {
        s.end(complete);
    }
}

impl<B> HttpBody for Tap<B>
where
    B: HttpBody<Data = Bytes> + Unpin,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let Tap { inner, sink } = self.get_mut();
        let inner = match inner.get_mut() {
            Ok(b) => b,
            Err(poisoned) => poisoned.into_inner(),
        };
        let polled = Pin::new(&mut *inner).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let (Some(s), Some(data)) = (sink.as_mut(), frame.data_ref()) {
                    s.chunk(data);
                }
                // A reader that knows the length stops polling at the end.
                if inner.is_end_stream() {
                    finish(sink, true);
                }
            }
            Poll::Ready(Some(Err(_))) => finish(sink, false),
            Poll::Ready(None) => finish(sink, true),
            Poll::Pending => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner
            .lock()
            .map(|b| b.is_end_stream())
            .unwrap_or(false)
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.lock().map(|b| b.size_hint()).unwrap_or_default()
    }
}

impl<B> Drop for Tap<B> {
    fn drop(&mut self) {
        finish(&mut self.sink, false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[derive(Clone, Default)]
    struct Seen(Arc<Mutex<(Vec<u8>, Option<bool>)>>);

    impl Sink for Seen {
        fn chunk(&mut self, bytes: &[u8]) {
            self.0.lock().unwrap().0.extend_from_slice(bytes);
        }
        fn end(&mut self, complete: bool) {
            let mut s = self.0.lock().unwrap();
            assert!(s.1.is_none(), "end is told once");
            s.1 = Some(complete);
        }
    }

    #[tokio::test]
    async fn a_tapped_body_passes_every_byte_and_ends_once() {
        let seen = Seen::default();
        let body = axum::body::Body::from("hello, tap");
        let tap = Tap::new(body, Some(Box::new(seen.clone())));
        assert_eq!(tap.size_hint().exact(), Some(10));
        let bytes = axum::body::to_bytes(axum::body::Body::new(tap), usize::MAX)
            .await
            .unwrap();
        assert_eq!(&bytes[..], b"hello, tap");
        assert_eq!(
            *seen.0.lock().unwrap(),
            (b"hello, tap".to_vec(), Some(true))
        );

        // Dropped before its end: the sink hears it was cut.
        let cut = Seen::default();
        drop(Tap::new(
            axum::body::Body::from("never read"),
            Some(Box::new(cut.clone())),
        ));
        assert_eq!(cut.0.lock().unwrap().1, Some(false));
    }
}
