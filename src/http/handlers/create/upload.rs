//! Reading a new paste's body: raw, or a `multipart/form-data` form whose
//! fields add options, within the size limit and the body's pace
//! ([`crate::http::body`]). Memory stays bounded: a body is refused as soon
//! as it passes the limit, or its client's share of the bytes in flight.

use axum::body::Body;
use axum::http::{HeaderMap, header};
use axum::response::Response;
use bytes::Bytes;
use futures_util::Stream;

use super::options::{CreateOptions, non_empty, validate_name};
use crate::core::files::{self, PasteFile};
use crate::core::paste;
use crate::http::api_error::ApiError;
use crate::http::body::{self, BodyError, Pace};
use crate::http::inflight::Reservation;

/// What a paste's body and form fields came to.
pub struct Upload {
    /// The options, from the query and any form fields.
    pub options: CreateOptions,
    /// The paste itself (a short link's target, for a short link).
    pub body: Bytes,
    /// The media type a multipart file part declared.
    pub declared_type: Option<String>,
    /// Whether it came as a `multipart/form-data` form (answered as form
    /// uploads are, see `created_response`).
    pub form: bool,
    /// A several-file paste's file table (`core::files`), in body order:
    /// `body` is its files one after the other. Empty for a one-file paste.
    pub files: Vec<PasteFile>,
}

impl Upload {
    /// For `url=…`: checks the combination and makes the target the body.
    fn into_short_link(mut self) -> Result<Self, ApiError> {
        let Some(url) = &self.options.url else {
            return Ok(self);
        };
        if !self.body.is_empty() {
            return Err(ApiError::bad_request("a short link (url=…) takes no body"));
        }
        if self.options.burn || self.options.encrypted {
            return Err(ApiError::bad_request(
                "a short link cannot be burn-after-reading or encrypted",
            ));
        }
        self.body = Bytes::from(url.clone());
        Ok(self)
    }
}

/// Why an upload was not read.
#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    /// The request or its form is unacceptable.
    #[error("{}", .0.message)]
    Request(ApiError),
    /// The body did not arrive whole (too large, too slow, no room).
    #[error(transparent)]
    Body(#[from] BodyError),
}

impl From<ApiError> for UploadError {
    fn from(error: ApiError) -> Self {
        Self::Request(error)
    }
}

impl UploadError {
    /// The answer; it closes the connection, as the body may be unread.
    pub fn into_answer(self) -> Response {
        match self {
            Self::Request(error) => body::closing(error),
            Self::Body(error) => error.into_answer(ApiError::too_large),
        }
    }
}

/// Reads the paste from `body` (raw, or the form's `file`/`content` parts,
/// at most `max_files` of them, whose other fields add to `options`),
/// refusing it beyond `limit` bytes or when it does not keep `pace`. Its
/// bytes are held in `reservation` as they arrive.
pub async fn read(
    options: CreateOptions,
    headers: &HeaderMap,
    body: Body,
    limit: u64,
    max_files: usize,
    pace: Pace,
    reservation: &mut Reservation,
) -> Result<Upload, UploadError> {
    check_encoding(headers)?;
    let boundary = multipart_boundary(headers)?;
    let allowed = match boundary {
        Some(_) => limit.saturating_add(MULTIPART_OVERHEAD),
        None => limit,
    };
    if let Some(length) = content_length(headers).filter(|&length| length > allowed) {
        linger(body, length, pace).await;
        return Err(ApiError::too_large(limit).into());
    }
    let upload = match boundary {
        Some(boundary) => {
            let chunks = body::chunks(body, pace, Some(reservation));
            read_multipart(chunks, boundary, options, limit, max_files).await?
        }
        None => Upload {
            options,
            body: body::read_whole(body, limit, pace, reservation).await?,
            declared_type: None,
            form: false,
            files: Vec::new(),
        },
    };
    let upload = upload.into_short_link()?;
    if upload.body.is_empty() {
        return Err(ApiError::bad_request("the paste is empty").into());
    }
    if upload.body.len() as u64 > limit {
        return Err(ApiError::too_large(limit).into());
    }
    Ok(upload)
}

/// The largest refused body read and thrown away before the 413 (see [`linger`]).
const LINGER_BYTES: u64 = 64 * 1024 * 1024;

/// Reads and discards a refused body of `length` bytes while it keeps
/// `pace`, before the answer is sent (a lingering close, as nginx does).
/// Closing a socket with unread bytes makes the kernel reset the connection,
/// and a client still sending then sees a broken pipe instead of the 413. A
/// body larger than [`LINGER_BYTES`] is not worth the bandwidth: the
/// connection is closed at once.
async fn linger(body: Body, length: u64, pace: Pace) {
    if length <= LINGER_BYTES {
        body::discard(body, pace).await;
    }
}

/// Room for multipart boundaries and headers on top of the paste size limit.
const MULTIPART_OVERHEAD: u64 = 64 * 1024;

fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

fn check_encoding(headers: &HeaderMap) -> Result<(), ApiError> {
    match headers
        .get(header::CONTENT_ENCODING)
        .map(|v| v.to_str().unwrap_or("?"))
    {
        None | Some("identity") => Ok(()),
        Some(other) => Err(ApiError::unsupported(format!(
            "Content-Encoding {:?} is not supported; send the paste uncompressed",
            other.chars().take(40).collect::<String>()
        ))),
    }
}

/// The boundary of a `multipart/form-data` body; `None` for any other (raw) body.
fn multipart_boundary(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    let Some(content_type) = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return Ok(None);
    };
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if essence == "multipart/form-data" {
        multer::parse_boundary(content_type)
            .map(Some)
            .map_err(|_| ApiError::bad_request("multipart/form-data without a boundary"))
    } else if essence.starts_with("multipart/") {
        Err(ApiError::unsupported(format!(
            "{essence} is not supported; send the paste as the raw body or as multipart/form-data"
        )))
    } else {
        // Every other type, including curl's default application/x-www-form-urlencoded,
        // is the paste itself, byte for byte.
        Ok(None)
    }
}

/// Most form fields that are not files: every option once, and then some.
const MAX_OPTION_FIELDS: usize = 32;

async fn read_multipart(
    chunks: impl Stream<Item = Result<Bytes, BodyError>> + Send,
    boundary: String,
    mut options: CreateOptions,
    limit: u64,
    max_files: usize,
) -> Result<Upload, UploadError> {
    let constraints = multer::Constraints::new().size_limit(
        multer::SizeLimit::new()
            .whole_stream(limit.saturating_add(MULTIPART_OVERHEAD))
            .per_field(limit),
    );
    let mut form = multer::Multipart::with_constraints(chunks, boundary, constraints);
    let mut parts: Vec<FilePart> = Vec::new();
    let mut option_fields = 0;
    while let Some(field) = form
        .next_field()
        .await
        .map_err(|e| multipart_error(e, limit))?
    {
        let key = field.name().unwrap_or("").to_owned();
        match key.as_str() {
            // rustypaste's clients name a burn paste's file part `oneshot`.
            "file" | "content" | "oneshot" => {
                // Refused at the part's headers, before its bytes are read.
                if parts.len() >= max_files {
                    return Err(ApiError::bad_request(format!(
                        "the form has more than {max_files} file or content parts; a paste may hold at most {max_files} files"
                    ))
                    .into());
                }
                options.burn |= key == "oneshot";
                parts.push(FilePart {
                    from_file: key != "content",
                    file_name: field.file_name().and_then(non_empty).map(str::to_owned),
                    declared_type: field.content_type().map(|m| m.essence_str().to_owned()),
                    bytes: field.bytes().await.map_err(|e| multipart_error(e, limit))?,
                });
            }
            _ => {
                option_fields += 1;
                if option_fields > MAX_OPTION_FIELDS {
                    return Err(ApiError::bad_request(format!(
                        "the form has more than {MAX_OPTION_FIELDS} option fields"
                    ))
                    .into());
                }
                let value = field.text().await.map_err(|e| multipart_error(e, limit))?;
                options.set_field(&key, &value)?;
            }
        }
    }
    // A short link's form (`url=…`) has no file: its target is the paste.
    if parts.is_empty() && options.url.is_some() {
        return Ok(Upload {
            options,
            body: Bytes::new(),
            declared_type: None,
            form: true,
            files: Vec::new(),
        });
    }
    from_parts(parts, options)
}

/// A `file` or `content` part of a form.
struct FilePart {
    /// A `file` part (whose file name names the paste), not `content`.
    from_file: bool,
    /// The file name the part gave, if any.
    file_name: Option<String>,
    /// The media type the part declared.
    declared_type: Option<String>,
    /// Its bytes.
    bytes: Bytes,
}

/// The upload of a form's file parts: one part is a one-file paste, as it
/// always was; several make a several-file paste, each part a file named
/// by its safe base name ([`files::safe_base_name`]).
fn from_parts(mut parts: Vec<FilePart>, mut options: CreateOptions) -> Result<Upload, UploadError> {
    if parts.len() > 1 {
        return several_files(parts, options);
    }
    let part = parts
        .pop()
        .ok_or_else(|| ApiError::bad_request("the form has no file or content part"))?;
    if let Some(file_name) = part
        .file_name
        .as_deref()
        .filter(|_| part.from_file && options.name.is_none())
    {
        options.name = Some(validate_name(file_name)?);
    }
    Ok(Upload {
        options,
        body: part.bytes,
        declared_type: part.declared_type,
        form: true,
        files: Vec::new(),
    })
}

/// A several-file paste: its body the parts' bytes one after the other,
/// its file table their names, sizes, languages and media types.
fn several_files(parts: Vec<FilePart>, options: CreateOptions) -> Result<Upload, UploadError> {
    if options.encrypted {
        return Err(ApiError::bad_request(
            "an encrypted paste is one envelope: seal its files in it before sending (snip put does)",
        )
        .into());
    }
    let bad = |e: files::FileError| ApiError::bad_request(e.to_string());
    let mut table = Vec::with_capacity(parts.len());
    for part in &parts {
        let raw = part.file_name.as_deref().ok_or_else(|| {
            ApiError::bad_request(
                "every file of a several-file paste needs a file name (curl -F file=@NAME)",
            )
        })?;
        let name = files::safe_base_name(raw).map_err(bad)?;
        table.push(PasteFile {
            lang: files::language_of(&name),
            content_type: paste::content_type_for(
                Some(&name),
                part.declared_type.as_deref(),
                &part.bytes,
            ),
            size: part.bytes.len() as u64,
            name,
        });
    }
    let size = table.iter().map(|file| file.size).sum();
    files::check_table(&table, size, None).map_err(bad)?;
    let mut body = bytes::BytesMut::with_capacity(usize::try_from(size).unwrap_or(0));
    for part in parts {
        body.extend_from_slice(&part.bytes);
    }
    Ok(Upload {
        options,
        body: body.freeze(),
        declared_type: None,
        form: true,
        files: table,
    })
}

fn multipart_error(e: multer::Error, limit: u64) -> UploadError {
    match e {
        multer::Error::FieldSizeExceeded { .. } | multer::Error::StreamSizeExceeded { .. } => {
            ApiError::too_large(limit).into()
        }
        multer::Error::StreamReadFailed(e) => match e.downcast::<BodyError>() {
            Ok(e) => UploadError::Body(*e),
            Err(e) => ApiError::bad_request(format!("could not read the request body: {e}")).into(),
        },
        other => ApiError::bad_request(format!("malformed multipart body: {other}")).into(),
    }
}

/// Property tests of uploads: `multipart/form-data` bodies (parsed by
/// `multer`, then their fields as options) and the content type that names
/// the boundary; `bench/fuzz` runs them long.
#[cfg(test)]
mod fuzz {
    use std::sync::LazyLock;
    use std::time::Duration;

    use axum::http::HeaderValue;
    use proptest::prelude::*;

    use super::*;
    use crate::http::inflight::InflightBytes;

    static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
    });

    /// The size limit of the tests' uploads.
    const LIMIT: u64 = 4096;

    /// A pace every body in memory keeps.
    const PACE: Pace = Pace {
        whole: Duration::from_secs(5),
        first_byte: Duration::from_secs(5),
        min_rate: 0,
    };

    /// A multipart body built from pieces that make parts, broken parts
    /// and stray bytes.
    fn multipart_body() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just(b"--XyZ\r\n".to_vec()),
            Just(b"--XyZ--\r\n".to_vec()),
            Just(b"\r\n".to_vec()),
            "Content-Disposition: form-data; name=\"(file|content|oneshot|oneshot_url|remote|ttl|burn|lang|name|url|x)\"(; filename=\"[a-z.]{0,8}\")?\r\n"
                .prop_map(String::into_bytes),
            "Content-Type: [a-z/+-]{0,20}\r\n".prop_map(String::into_bytes),
            proptest::collection::vec(any::<u8>(), 0..64),
            (0usize..6000).prop_map(|n| vec![b'a'; n]),
        ];
        proptest::collection::vec(piece, 0..16).prop_map(|pieces| pieces.concat())
    }

    fn content_type() -> impl Strategy<Value = String> {
        prop_oneof![
            8 => Just("multipart/form-data; boundary=XyZ".to_owned()),
            1 => "multipart/[a-z-]{0,12}(; ?boundary=\"?[ -~]{0,20}\"?)?",
            1 => "[ -~]{0,40}",
        ]
    }

    proptest! {
        /// Any body with any content type is read or refused with a 4xx,
        /// never a panic; what is read is within the size limit.
        #[test]
        fn fuzz_multipart_uploads(body in multipart_body(), content_type in content_type()) {
            let mut headers = HeaderMap::new();
            if let Ok(value) = HeaderValue::from_str(&content_type) {
                headers.insert(header::CONTENT_TYPE, value);
            }
            let inflight = std::sync::Arc::new(InflightBytes::new(u64::MAX, u64::MAX, 64));
            let mut reservation = inflight.reservation([127, 0, 0, 1].into());
            let read = RUNTIME.block_on(read(
                CreateOptions::default(),
                &headers,
                Body::from(body),
                LIMIT,
                3,
                PACE,
                &mut reservation,
            ));
            match read {
                Ok(upload) => prop_assert!(upload.body.len() as u64 <= LIMIT),
                Err(e) => {
                    let status = e.into_answer().status();
                    prop_assert!(status.is_client_error(), "{status}");
                }
            }
        }
    }
}
