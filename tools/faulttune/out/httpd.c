// SPDX-License-Identifier: GPL-2.0
/*
 * faulttune watch --listen: GET /metrics over HTTP/1.0, served from the
 * watch loop itself.  One thread, poll() on the listening socket and on a
 * few open connections; the loop's waits between and during windows are
 * these polls, so a scrape is answered within one poll of the recording.
 * Every answer closes its connection; anything but GET or HEAD of
 * /metrics is refused (404, 405), and a client that does not finish its
 * request within FT_HTTPD_TIMEOUT_S or sends more than a page of headers
 * is dropped: a scraper never holds the recording back.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include "watch.h"
#include "out.h"

#define FT_HTTPD_CONNS		8
#define FT_HTTPD_REQ_MAX	4096
#define FT_HTTPD_TIMEOUT_S	5.0

struct conn {
	int fd;			/* -1: free */
	size_t n;
	double deadline;
	char req[FT_HTTPD_REQ_MAX + 1];
};

struct ft_httpd {
	int fd;
	char addr[80];
	struct conn c[FT_HTTPD_CONNS];
};

/* "ADDR:PORT", "[V6]:PORT", ":PORT" or "PORT"; numeric addresses only */
static int parse_listen(const char *s, struct sockaddr_storage *ss,
			socklen_t *len)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	char host[64] = "127.0.0.1";
	const char *port = s, *colon;
	uint64_t p;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		const char *end = strchr(s, ']');

		if (!end || end[1] != ':' || end - s - 1 >= (int)sizeof(host))
			return -1;
		memcpy(host, s + 1, end - s - 1);
		host[end - s - 1] = '\0';
		port = end + 2;
	} else if ((colon = strrchr(s, ':'))) {
		if (colon - s >= (int)sizeof(host) || strchr(s, ':') != colon)
			return -1;
		if (colon > s) {
			memcpy(host, s, colon - s);
			host[colon - s] = '\0';
		}
		port = colon + 1;
	}
	if (ft_parse_uint(port, 0, 65535, &p))
		return -1;
	if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(p);
		*len = sizeof(*in4);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(p);
		*len = sizeof(*in6);
		return 0;
	}
	return -1;
}

static void name_of(struct ft_httpd *h)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char ip[INET6_ADDRSTRLEN] = "?";

	if (getsockname(h->fd, (struct sockaddr *)&ss, &len))
		return;
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
		snprintf(h->addr, sizeof(h->addr), "%s:%u", ip, ntohs(a->sin_port));
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof(ip));
		snprintf(h->addr, sizeof(h->addr), "[%s]:%u", ip,
			 ntohs(a->sin6_port));
	}
}

int ft_httpd_check(const char *listen_at)
{
	struct sockaddr_storage ss;
	socklen_t len;

	if (!parse_listen(listen_at, &ss, &len))
		return 0;
	ft_err("watch: bad --listen '%s': want [ADDR:]PORT with a numeric IPv4 "
	       "or [IPv6] address and a port from 0 to 65535, e.g. "
	       "127.0.0.1:9435 (default address 127.0.0.1)", listen_at);
	return -1;
}

struct ft_httpd *ft_httpd_open(const char *listen_at)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct ft_httpd *h;
	int one = 1, i;

	if (ft_httpd_check(listen_at))
		return NULL;
	parse_listen(listen_at, &ss, &len);
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	for (i = 0; i < FT_HTTPD_CONNS; i++)
		h->c[i].fd = -1;
	h->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (h->fd < 0 ||
	    setsockopt(h->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(h->fd, (struct sockaddr *)&ss, len) || listen(h->fd, 16)) {
		ft_err("watch: cannot listen on %s: %s", listen_at, strerror(errno));
		if (h->fd >= 0)
			close(h->fd);
		free(h);
		return NULL;
	}
	name_of(h);
	return h;
}

const char *ft_httpd_addr(const struct ft_httpd *h)
{
	return h->addr;
}

static void conn_close(struct conn *c)
{
	close(c->fd);
	c->fd = -1;
	c->n = 0;
}

static void send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t r = send(fd, p, n, MSG_NOSIGNAL);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
		p += r;
		n -= r;
	}
}

static void respond(struct conn *c, const char *body, size_t len)
{
	struct timeval tv = { .tv_sec = 2 };
	const char *status = "200 OK", *type = "text/plain; version=0.0.4; charset=utf-8";
	static const char nf[] = "404 page not found: faulttune serves /metrics\n";
	static const char na[] = "405 method not allowed: GET /metrics\n";
	char method[8] = "", target[256] = "", head[256];
	int head_only, allow = 0, n;

	sscanf(c->req, "%7s %255s", method, target);
	target[strcspn(target, "?")] = '\0';
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		status = "405 Method Not Allowed";
		allow = 1;
		type = "text/plain; charset=utf-8";
		body = na;
		len = sizeof(na) - 1;
	} else if (strcmp(target, "/metrics")) {
		status = "404 Not Found";
		type = "text/plain; charset=utf-8";
		body = nf;
		len = sizeof(nf) - 1;
	}
	head_only = !strcmp(method, "HEAD");
	n = snprintf(head, sizeof(head), "HTTP/1.0 %s\r\nContent-Type: %s\r\n"
		     "Content-Length: %zu\r\n%sConnection: close\r\n\r\n", status,
		     type, len, allow ? "Allow: GET, HEAD\r\n" : "");
	/* a slow reader gets 2 s per send, then is dropped */
	fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) & ~O_NONBLOCK);
	setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	send_all(c->fd, head, n);
	if (!head_only)
		send_all(c->fd, body, len);
	conn_close(c);
}

static void on_readable(struct conn *c, const char *body, size_t len)
{
	ssize_t r = recv(c->fd, c->req + c->n, FT_HTTPD_REQ_MAX - c->n, 0);

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (r <= 0) {
		conn_close(c);
		return;
	}
	c->n += r;
	c->req[c->n] = '\0';
	if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n"))
		respond(c, body, len);
	else if (c->n == FT_HTTPD_REQ_MAX)
		conn_close(c);
}

static void on_accept(struct ft_httpd *h)
{
	int i, fd;

	for (;;) {
		fd = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		for (i = 0; i < FT_HTTPD_CONNS && h->c[i].fd >= 0; i++)
			;
		if (i == FT_HTTPD_CONNS) {	/* busy: the scraper retries */
			close(fd);
			continue;
		}
		h->c[i].fd = fd;
		h->c[i].n = 0;
		h->c[i].deadline = ft_now() + FT_HTTPD_TIMEOUT_S;
	}
}

void ft_httpd_serve(struct ft_httpd *h, int timeout_ms, const char *body,
		    size_t len)
{
	struct pollfd pfd[FT_HTTPD_CONNS + 1];
	struct conn *who[FT_HTTPD_CONNS + 1];
	double end = ft_now() + timeout_ms / 1e3, now;
	int i, n, r;

	while (!ft_stop && (now = ft_now()) < end) {
		n = 0;
		pfd[n].fd = h->fd;
		pfd[n].events = POLLIN;
		who[n++] = NULL;
		for (i = 0; i < FT_HTTPD_CONNS; i++) {
			if (h->c[i].fd < 0)
				continue;
			if (now > h->c[i].deadline) {
				conn_close(&h->c[i]);
				continue;
			}
			pfd[n].fd = h->c[i].fd;
			pfd[n].events = POLLIN;
			who[n++] = &h->c[i];
		}
		r = poll(pfd, n, (int)((end - now) * 1e3) + 1);
		if (r <= 0)
			continue;	/* timeout or a signal: ft_stop decides */
		for (i = 1; i < n; i++)
			if (pfd[i].revents)
				on_readable(who[i], body, len);
		if (pfd[0].revents & POLLIN)
			on_accept(h);
	}
}

void ft_httpd_close(struct ft_httpd *h)
{
	int i;

	if (!h)
		return;
	for (i = 0; i < FT_HTTPD_CONNS; i++)
		if (h->c[i].fd >= 0)
			close(h->c[i].fd);
	close(h->fd);
	free(h);
}
