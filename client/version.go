package client

// Version is the SDK's semantic version; it is sent in the User-Agent header.
const Version = "0.2.0"
