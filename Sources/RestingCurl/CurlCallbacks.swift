import CCurl

// The C functions libcurl calls on the driver thread, each handing its bytes to the `CurlTransfer` whose pointer
// is the callback's `userdata` (set by `CurlTransfer.configure(_:userdata:)`; the driver keeps the transfer alive
// until libcurl is done with it).

/// The transfer `userdata` points to, without taking a reference.
private func transfer(_ userdata: UnsafeMutableRawPointer?) -> CurlTransfer? {
    userdata.map { Unmanaged<CurlTransfer>.fromOpaque($0).takeUnretainedValue() }
}

let writeCallback: rk_data_callback = { bytes, size, count, userdata in
    guard let bytes, let transfer = transfer(userdata) else { return 0 }
    return transfer.receiveBody(bytes, size * count)
}

let headerCallback: rk_data_callback = { bytes, size, count, userdata in
    guard let bytes, let transfer = transfer(userdata) else { return 0 }
    return transfer.receiveHeader(bytes, size * count)
}

/// Takes and drops what a connect-only handle's proxy answers to its CONNECT (an upgrade's tunnel): nothing reads it.
let discardCallback: rk_data_callback = { _, size, count, _ in size * count }

let readCallback: rk_data_callback = { bytes, size, count, userdata in
    guard let bytes, let transfer = transfer(userdata) else { return Int(CURL_READFUNC_ABORT) }
    return transfer.readBody(into: UnsafeMutableRawBufferPointer(start: bytes, count: size * count))
}

let seekCallback: rk_seek_callback = { userdata, offset, origin in
    guard offset == 0, origin == SEEK_SET, let transfer = transfer(userdata) else {
        return Int32(CURL_SEEKFUNC_CANTSEEK)
    }
    return transfer.rewindBody()
}

/// Sees the body's bytes as they came off the wire, for transfers that watch their response's framing.
let debugCallback: rk_debug_callback = { _, type, bytes, count, userdata in
    guard type == CURLINFO_DATA_IN, let bytes, let transfer = transfer(userdata) else { return 0 }
    transfer.receiveWireBody(UnsafeRawBufferPointer(start: bytes, count: count))
    return 0
}

/// Gives a chunked upload its trailer fields, once its body has been read.
let trailerCallback: rk_trailer_callback = { list, userdata in
    guard let list, let transfer = transfer(userdata) else { return Int32(CURL_TRAILERFUNC_OK) }
    return transfer.appendTrailers(to: list)
}

let progressCallback: rk_progress_callback = { userdata, downloadTotal, downloaded, _, uploaded in
    let keepsUp = transfer(userdata)?.reportProgress(
        downloaded: Int64(downloaded), expected: Int64(downloadTotal), uploaded: Int64(uploaded))
    return keepsUp == false ? 1 : 0
}
