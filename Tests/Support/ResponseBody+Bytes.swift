import Foundation
import RestingCore

extension ResponseBody {
    /// The bytes of a body the transport read whole, for a test's expectations; empty for a streamed body, which
    /// those expectations then fail on (a test that streams reads the stream).
    package var bytes: Data { data ?? Data() }
}
