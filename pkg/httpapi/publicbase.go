package httpapi

import "net/http"

// PublicBase is the API's public address for links that leave the
// request (a render's email): see publicBase; "" when unknown.
func (a *API) PublicBase(r *http.Request) string { return a.publicBase(r) }
