package mailtmpl

import (
	htmltemplate "html/template"
	texttemplate "text/template"
)

// textLayout is the plain-text part. The signature delimiter "-- " lets
// mail clients fold what follows.
var textLayout = texttemplate.Must(texttemplate.New("text").Parse(
	`{{.Greeting}}
{{range .Paragraphs}}
{{.}}
{{end}}{{if .Quote}}
{{range .Quote}}> {{.}}
{{end}}{{if .QuoteBy}}({{.QuoteBy}})
{{end}}{{end}}{{if .ActionURL}}
{{.ActionLabel}}:
{{.ActionURL}}
{{end}}{{range .Closing}}
{{.}}
{{end}}
-- 
{{.Signature}}
`))

// htmlLayout is the HTML part: tables and inline styles, which mail
// clients render alike; html/template escapes every value for its
// context (text, attribute, URL, CSS).
var htmlLayout = htmltemplate.Must(htmltemplate.New("html").Parse(
	`<!DOCTYPE html>
<html lang="{{.Lang}}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>{{.Title}}</title></head>
<body style="margin:0;padding:0;background:#f4f5f7;font-family:Arial,Helvetica,sans-serif;color:#1a1a1a">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f5f7"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="600" cellpadding="0" cellspacing="0" style="max-width:600px;background:#ffffff;border-top:4px solid {{.Color}}">
{{- if .Banner}}
<tr><td><img src="cid:banner" alt="{{.Signature}}" width="600" style="display:block;width:100%;max-width:600px;height:auto;border:0"></td></tr>
{{- end}}
<tr><td style="padding:24px 32px;font-size:15px;line-height:1.5">
<p style="margin:0 0 16px">{{.Greeting}}</p>
{{- range .Paragraphs}}
<p style="margin:0 0 16px">{{.}}</p>
{{- end}}
{{- if .Quote}}
<blockquote style="margin:0 0 16px;padding:8px 16px;border-left:4px solid {{.Color}};background:#f4f5f7">{{range $i, $l := .Quote}}{{if $i}}<br>{{end}}{{$l}}{{end}}{{if .QuoteBy}}<br><span style="color:#5c5f66">({{.QuoteBy}})</span>{{end}}</blockquote>
{{- end}}
{{- if .ActionURL}}
<p style="margin:24px 0"><a href="{{.ActionURL}}" style="display:inline-block;padding:12px 20px;background:{{.Color}};color:#ffffff;text-decoration:none;border-radius:4px;font-weight:bold">{{.ActionLabel}}</a></p>
<p style="margin:0 0 16px;font-size:13px;color:#5c5f66;word-break:break-all">{{.ActionURL}}</p>
{{- end}}
{{- range .Closing}}
<p style="margin:0 0 16px;font-size:13px;color:#5c5f66">{{.}}</p>
{{- end}}
<p style="margin:24px 0 0">{{.Signature}}</p>
</td></tr>
</table>
</td></tr></table>
</body>
</html>
`))
