(function () {
  'use strict';
  window.relayScriptStartMs = performance.now();
  // Data: a JSON index of the entries and their HTML fragments (rendered at
  // export time, content already escaped), separated by U+0001.
  var $ = function (id) { return document.getElementById(id); };
  var meta = JSON.parse($('relay-meta').textContent);
  var F = $('relay-fragments').textContent.split('\u0001');
  var E = meta.entries; // [id, parent, flags, treeClass, treePrefix, treeText, label]
  var N = E.length;
  var SETTINGS = 1, TOOL_ONLY = 2, TOOL_RESULT = 4, USER = 8, ERROR = 16, SLOTTED = 32;
  // FIRST entries fill the first screen; CHUNK more are added as the reader
  // scrolls near either end.
  var ROW = 22, FIRST = 12, CHUNK = 40;

  var byId = new Map();
  var children = new Array(N);
  var roots = [];
  for (var i = 0; i < N; i++) {
    byId.set(E[i][0], i);
    var p = E[i][1];
    if (p < 0) roots.push(i); else (children[p] || (children[p] = [])).push(i);
  }

  // Tree order (iterative DFS: a linear session is 20,000 levels deep) and
  // indentation: a node's children are indented only at a branch point.
  var order = new Int32Array(N), depth = new Int32Array(N), branchChild = new Uint8Array(N);
  (function () {
    var k = 0, stack = [];
    for (var r = roots.length - 1; r >= 0; r--) stack.push(roots[r], 0, roots.length > 1 ? 1 : 0);
    while (stack.length) {
      var bc = stack.pop(), d = stack.pop(), n = stack.pop();
      order[k++] = n; depth[n] = d; branchChild[n] = bc;
      var ch = children[n];
      if (!ch) continue;
      var many = ch.length > 1;
      for (var j = ch.length - 1; j >= 0; j--) stack.push(ch[j], many ? d + 1 : d, many ? 1 : 0);
    }
    if (k < N) order = order.subarray(0, k);
  })();

  // The newest leaf under a node: entries are in file order, so it is the
  // descendant with the highest index.
  function newestLeaf(n) {
    var best = n, stack = [n];
    while (stack.length) {
      var x = stack.pop();
      if (x > best) best = x;
      var ch = children[x];
      if (ch) for (var j = 0; j < ch.length; j++) stack.push(ch[j]);
    }
    return best;
  }

  var leaf = meta.leaf >= 0 ? meta.leaf : (N ? newestLeaf(roots[roots.length - 1]) : -1);
  var target = -1;
  var onPath = new Uint8Array(N);
  var path = [];
  function setLeaf(l) {
    leaf = l;
    onPath.fill(0);
    path = [];
    for (var x = l; x >= 0; x = E[x][1]) { if (onPath[x]) break; onPath[x] = 1; path.push(x); }
    path.reverse();
  }

  // ---- search and filters ------------------------------------------------
  var filter = 'default', query = '', tokens = [];
  var searchCache = new Array(N);
  var ENT = { '&lt;': '<', '&gt;': '>', '&amp;': '&', '&#34;': '"', '&quot;': '"', '&#39;': "'", '&#x27;': "'" };
  function searchText(i) {
    var s = searchCache[i];
    if (s === undefined) {
      var body = F[i] ? F[i].replace(/<[^>]*>/g, ' ').replace(/&(lt|gt|amp|quot|#34|#39|#x27);/g, function (m) { return ENT[m]; }) : '';
      s = searchCache[i] = (E[i][4] + ' ' + E[i][5] + ' ' + E[i][6] + ' ' + body).toLowerCase();
    }
    return s;
  }
  // The search text is built in idle time after the page opens, so the
  // first query on a large session does not strip every fragment at once.
  var indexed = 0;
  function indexIdle(deadline) {
    while (indexed < N && deadline.timeRemaining() > 1) searchText(indexed++);
    if (indexed < N) idle(indexIdle);
  }
  function idle(f) {
    if (window.requestIdleCallback) requestIdleCallback(f, { timeout: 1000 });
    else setTimeout(function () { f({ timeRemaining: function () { return 8; } }); }, 30);
  }
  function passes(i) {
    if (i === leaf) return true;
    var f = E[i][2];
    if (f & TOOL_ONLY) return false;
    switch (filter) {
      case 'user-only': if (!(f & USER)) return false; break;
      case 'no-tools': if (f & (SETTINGS | TOOL_RESULT)) return false; break;
      case 'labeled-only': if (!E[i][6]) return false; break;
      case 'all': break;
      default: if (f & SETTINGS) return false;
    }
    if (tokens.length) {
      var t = searchText(i);
      for (var k = 0; k < tokens.length; k++) if (t.indexOf(tokens[k]) < 0) return false;
    }
    return true;
  }
  var visible = new Int32Array(0);
  function refilter() {
    var out = new Int32Array(order.length), n = 0;
    for (var k = 0; k < order.length; k++) if (passes(order[k])) out[n++] = order[k];
    visible = out.subarray(0, n);
    $('tree-status').textContent = n + ' / ' + N + ' entries';
    $('tree-spacer').style.height = (n * ROW) + 'px';
    drawTree(true);
  }

  // ---- virtualised tree --------------------------------------------------
  var treeBox = $('tree-container'), spacer = $('tree-spacer');
  var drawn = '';
  function drawTree(force) {
    var h = treeBox.clientHeight || 600;
    var first = Math.max(0, Math.floor(treeBox.scrollTop / ROW) - 10);
    var last = Math.min(visible.length, first + Math.ceil(h / ROW) + 20);
    var key = first + ':' + last;
    if (!force && key === drawn) return;
    drawn = key;
    var frag = document.createDocumentFragment();
    for (var k = first; k < last; k++) {
      var i = visible[k], e = E[i];
      var row = document.createElement('div');
      row.className = 'tree-node' + (onPath[i] ? ' in-path' : '') + (i === target ? ' active' : '') + (e[2] & ERROR ? ' error' : '');
      row.style.top = (k * ROW) + 'px';
      row.style.paddingLeft = (8 + Math.min(depth[i], 24) * 12) + 'px';
      row.dataset.i = i;
      row.title = e[4] + ' ' + e[5];
      var m = document.createElement('span');
      m.className = 'tree-marker';
      m.textContent = onPath[i] ? '•' : ' ';
      row.appendChild(m);
      if (branchChild[i]) {
        var b = document.createElement('span');
        b.className = 'tree-branch';
        b.textContent = '├ ';
        row.appendChild(b);
      }
      if (e[6]) {
        var l = document.createElement('span');
        l.className = 'tree-label';
        l.textContent = '[' + e[6] + ']';
        row.appendChild(l);
      }
      if (e[4]) {
        var pr = document.createElement('span');
        pr.className = e[3];
        pr.textContent = e[4];
        row.appendChild(pr);
        row.appendChild(document.createTextNode(' '));
      }
      var t = document.createElement('span');
      t.className = 'tree-text';
      t.textContent = e[5];
      row.appendChild(t);
      frag.appendChild(row);
    }
    spacer.textContent = '';
    spacer.appendChild(frag);
  }
  var treeTick = false;
  treeBox.addEventListener('scroll', function () {
    if (treeTick) return;
    treeTick = true;
    requestAnimationFrame(function () { treeTick = false; drawTree(false); });
  });
  window.addEventListener('resize', function () { drawTree(true); });
  treeBox.addEventListener('click', function (ev) {
    var row = ev.target.closest('.tree-node');
    if (!row || String(window.getSelection())) return;
    var i = +row.dataset.i;
    navigate(newestLeaf(i), i, true);
  });
  function revealInTree(i) {
    for (var k = 0; k < visible.length; k++) {
      if (visible[k] === i) {
        var y = k * ROW;
        if (y < treeBox.scrollTop || y > treeBox.scrollTop + treeBox.clientHeight - ROW) treeBox.scrollTop = Math.max(0, y - treeBox.clientHeight / 2);
        return;
      }
    }
  }

  // ---- conversation, rendered lazily from the fragments -------------------
  var content = $('content'), messages = $('messages');
  var shown = [];      // path entries that draw a block of their own
  var lo = 0, hi = 0;  // rendered window over shown
  var topSentinel, bottomSentinel, observer;

  function build(i) {
    var t = document.createElement('template');
    t.innerHTML = F[i];
    var el = t.content.firstElementChild;
    if (!el) return null;
    var slots = t.content.querySelectorAll('.tool-slot');
    for (var k = 0; k < slots.length; k++) {
      var r = +slots[k].dataset.r;
      if (r >= 0 && r < N) slots[k].innerHTML = F[r];
    }
    return el;
  }
  function renderRange(from, to, atTop) {
    var frag = document.createDocumentFragment();
    for (var k = from; k < to; k++) {
      var el = build(shown[k]);
      if (el) frag.appendChild(el);
    }
    if (atTop) {
      var before = content.scrollHeight;
      messages.insertBefore(frag, topSentinel.nextSibling);
      content.scrollTop += content.scrollHeight - before;
    } else {
      messages.insertBefore(frag, bottomSentinel);
    }
  }
  function ownerOf(i) {
    // A tool result drawn inside its call scrolls to the call's message.
    for (var x = i; x >= 0; x = E[x][1]) if (!(E[x][2] & SLOTTED) && F[x]) return x;
    return -1;
  }
  function showConversation(focus) {
    shown = [];
    for (var k = 0; k < path.length; k++) {
      var i = path[k];
      if (F[i] && !(E[i][2] & SLOTTED)) shown.push(i);
    }
    var at = focus >= 0 ? shown.indexOf(ownerOf(focus)) : -1;
    if (at >= 0) { lo = Math.max(0, at - 4); hi = Math.min(shown.length, at + FIRST); }
    else { lo = 0; hi = Math.min(shown.length, FIRST); }
    if (observer) observer.disconnect();
    messages.textContent = '';
    topSentinel = document.createElement('div'); topSentinel.className = 'sentinel';
    bottomSentinel = document.createElement('div'); bottomSentinel.className = 'sentinel';
    messages.appendChild(topSentinel); messages.appendChild(bottomSentinel);
    renderRange(lo, hi, false);
    observer = new IntersectionObserver(function (items) {
      for (var k = 0; k < items.length; k++) {
        if (!items[k].isIntersecting) continue;
        if (items[k].target === bottomSentinel && hi < shown.length) {
          var h = Math.min(shown.length, hi + CHUNK); renderRange(hi, h, false); hi = h;
        } else if (items[k].target === topSentinel && lo > 0) {
          var l = Math.max(0, lo - CHUNK); renderRange(l, lo, true); lo = l;
        }
      }
    }, { root: content, rootMargin: '1200px 0px' });
    observer.observe(topSentinel); observer.observe(bottomSentinel);
    if (focus >= 0) {
      var el = messages.querySelector('[data-id="' + CSS.escape(E[focus][0]) + '"]');
      if (el) {
        el.scrollIntoView({ block: 'center' });
        var box = el.closest('.entry') || el;
        box.classList.add('highlight');
        setTimeout(function () { box.classList.remove('highlight'); }, 2000);
      }
    } else {
      content.scrollTop = 0;
    }
  }

  function navigate(newLeaf, focus, updateHash) {
    setLeaf(newLeaf);
    target = focus >= 0 ? focus : newLeaf;
    drawTree(true);
    revealInTree(target);
    showConversation(focus);
    if (updateHash && focus >= 0) {
      try { history.replaceState(null, '', '#' + encodeURIComponent(E[focus][0])); } catch (e) { /* file:// in some browsers */ }
    }
  }

  // ---- deep links: #<entry id>, also through a share viewer ---------------
  function hashParts(h) {
    if (!h) return [];
    h = String(h).replace(/^#/, '');
    try { h = decodeURIComponent(h); } catch (e) { /* keep as is */ }
    return h.split(/[\/&?=#,;]/).filter(Boolean);
  }
  function viewerHash() {
    var m = document.querySelector('meta[name="relay-url-hash"]');
    if (m) return m.content;
    try { if (window.parent !== window) return window.parent.location.hash; } catch (e) { /* cross-origin */ }
    return '';
  }
  function hashTarget() {
    var parts = hashParts(location.hash).concat(hashParts(viewerHash()));
    for (var k = 0; k < parts.length; k++) if (byId.has(parts[k])) return byId.get(parts[k]);
    return -1;
  }
  function linkTo(id) {
    // In a share viewer (base#<gist id>) the link keeps the gist id.
    var vh = hashParts(viewerHash()).filter(function (p) { return !byId.has(p); });
    if (vh.length) {
      var base = '';
      try { base = window.parent.location.href.split('#')[0]; } catch (e) { base = ''; }
      if (base) return base + '#' + vh[0] + '/' + encodeURIComponent(id);
    }
    return location.href.split('#')[0] + '#' + encodeURIComponent(id);
  }
  window.addEventListener('hashchange', function () {
    var t = hashTarget();
    if (t >= 0 && t !== target) navigate(onPath[t] ? leaf : newestLeaf(t), t, false);
  });

  // ---- interactions --------------------------------------------------------
  messages.addEventListener('click', function (ev) {
    var t = ev.target;
    var btn = t.closest('.copy-link');
    if (btn) {
      var url = linkTo(btn.dataset.link);
      var done = function () { btn.classList.add('copied'); setTimeout(function () { btn.classList.remove('copied'); }, 1200); };
      if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(url).then(done, done); else done();
      try { history.replaceState(null, '', '#' + encodeURIComponent(btn.dataset.link)); } catch (e) { /* ignore */ }
      return;
    }
    if (t.tagName === 'IMG') {
      $('modal-image').src = t.src;
      $('image-modal').classList.add('open');
      return;
    }
    if (t.closest('a')) return;
    if (String(window.getSelection())) return;
    if (t.closest('.thinking-collapsed')) { toggleThinking(); return; }
    var ex = t.closest('.expandable');
    if (ex) ex.classList.toggle('expanded');
  });
  $('image-modal').addEventListener('click', function () { this.classList.remove('open'); });
  function toggleThinking() { document.body.classList.toggle('show-thinking'); }
  function toggleTools() { document.body.classList.toggle('tools-expanded'); }
  $('toggle-thinking').addEventListener('click', toggleThinking);
  $('toggle-tools').addEventListener('click', toggleTools);

  var search = $('tree-search'), searchTimer = 0;
  search.addEventListener('input', function () {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(function () {
      query = search.value;
      tokens = query.toLowerCase().split(/\s+/).filter(Boolean);
      refilter();
    }, N > 2000 ? 150 : 0);
  });
  var filterBtns = document.querySelectorAll('.filter-btn');
  for (var fb = 0; fb < filterBtns.length; fb++) {
    filterBtns[fb].addEventListener('click', function () {
      for (var k = 0; k < filterBtns.length; k++) filterBtns[k].classList.remove('active');
      this.classList.add('active');
      filter = this.dataset.filter;
      refilter();
    });
  }
  $('hamburger').addEventListener('click', function () { document.body.classList.toggle('sidebar-open'); drawTree(true); });

  document.addEventListener('keydown', function (ev) {
    var a = document.activeElement;
    var editing = a && (a.tagName === 'INPUT' || a.tagName === 'TEXTAREA' || a.isContentEditable);
    if (ev.key === 'Escape') {
      if (search.value) { search.value = ''; query = ''; tokens = []; refilter(); }
      $('image-modal').classList.remove('open');
      if (editing) a.blur();
      return;
    }
    if (editing || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var k = ev.key.toLowerCase();
    if (k === 't') { ev.preventDefault(); toggleThinking(); }
    else if (k === 'o') { ev.preventDefault(); toggleTools(); }
    else if (k === '/') { ev.preventDefault(); search.focus(); }
  });

  // ---- JSONL download --------------------------------------------------------
  $('download-jsonl').addEventListener('click', function () {
    var node = $('relay-jsonl');
    var bin = atob(node.textContent.trim());
    var bytes = new Uint8Array(bin.length);
    for (var k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
    var name = node.dataset.name || 'session.jsonl';
    var save = function (blob, n) {
      var url = URL.createObjectURL(blob);
      var a = document.createElement('a');
      a.href = url; a.download = n;
      document.body.appendChild(a); a.click(); a.remove();
      setTimeout(function () { URL.revokeObjectURL(url); }, 10000);
    };
    var gz = new Blob([bytes], { type: 'application/gzip' });
    if (typeof DecompressionStream === 'undefined') { save(gz, name + '.gz'); return; }
    new Response(gz.stream().pipeThrough(new DecompressionStream('gzip'))).blob().then(function (b) {
      save(new Blob([b], { type: 'application/x-ndjson' }), name);
    }, function () { save(gz, name + '.gz'); });
  });

  // ---- start -------------------------------------------------------------------
  var first = hashTarget();
  if (first >= 0) {
    var l = newestLeaf(first);
    // Stay on the session's branch when the target is on it.
    setLeaf(leaf);
    if (!onPath[first]) leaf = l;
  }
  setLeaf(leaf);
  target = first >= 0 ? first : leaf;
  refilter();
  revealInTree(target);
  showConversation(first);
  window.relayReadyMs = performance.now();
  setTimeout(function () { idle(indexIdle); }, 500);
  document.documentElement.dataset.ready = '1';
})();
