//! The codec of the generated servers: protobuf through `prost` (as `tonic_prost::ProstCodec`),
//! except that a request that is not a valid protobuf message (a string that is not UTF-8, a
//! truncated field, a wrong wire type) is `INVALID_ARGUMENT` — the client sent it — rather
//! than tonic's `INTERNAL`. The message names the decoding error, never the request's bytes.
//! The generated clients keep `tonic_prost::ProstCodec`: a response that does not decode is
//! the server's fault, `INTERNAL`.

use std::marker::PhantomData;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic::Status;

/// [`Codec`] of the generated servers: encodes `T` (responses) and decodes `U` (requests)
/// with prost; a request that does not decode is `INVALID_ARGUMENT`.
#[derive(Debug, Clone, Copy)]
pub struct RequestCodec<T, U> {
    _pd: PhantomData<(T, U)>,
}

impl<T, U> Default for RequestCodec<T, U> {
    fn default() -> Self {
        RequestCodec { _pd: PhantomData }
    }
}

impl<T, U> Codec for RequestCodec<T, U>
where
    T: prost::Message + Send + 'static,
    U: prost::Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = tonic_prost::ProstEncoder<T>;
    type Decoder = RequestDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        tonic_prost::ProstEncoder::default()
    }

    fn decoder(&mut self) -> Self::Decoder {
        RequestDecoder { inner: tonic_prost::ProstDecoder::default() }
    }
}

/// Decodes a request `U`; see [`RequestCodec`].
#[derive(Debug)]
pub struct RequestDecoder<U> {
    inner: tonic_prost::ProstDecoder<U>,
}

impl<U: prost::Message + Default> Decoder for RequestDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        self.inner
            .decode(buf)
            .map_err(|s| Status::invalid_argument(format!("the request is not a valid protobuf message: {}", s.message())))
    }

    fn buffer_settings(&self) -> BufferSettings {
        self.inner.buffer_settings()
    }
}
