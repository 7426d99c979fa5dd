package view

import (
	"context"
	"hash/fnv"
	"math"
	"slices"
)

// The overview's positions come from ForceAtlas2 (Jacomy et al., 2014;
// the layout of Gephi), computed in the server once and kept: repulsion
// between every pair of notes (approximated by a Barnes-Hut quadtree),
// linear attraction along links, "strong" gravity towards the centre
// (growing with distance, so that the vault's separate components stay in
// view instead of drifting apart), and the adaptive speed of the paper
// (swinging against traction), which settles without a hand-tuned cooling
// schedule. Node mass is degree + 1, so hubs push their neighbourhood
// apart.
const (
	layoutRepulsion = 10.0 // kr: scaling of repulsion against attraction (the paper's choice for large graphs)
	layoutGravity   = 0.2  // kg, strong gravity: kg*m*d towards the centre
	layoutTheta     = 1.2  // Barnes-Hut: a cell is one body when size/distance < theta
	maxTreeDepth    = 48   // coincident points stop splitting here
)

// layoutIterations is how many iterations a single-level layout of n
// nodes runs: a vault of up to multilevelMin notes, or the coarsest level
// of a bigger one (a graph that hardly coarsens, such as thousands of
// lone notes, is laid out whole: at 100k notes each iteration costs about
// 0.1 s, so fewer, the start being laid out by folder).
func layoutIterations(n int) int {
	switch {
	case n <= 2000:
		return 500
	case n <= 20000:
		return 300
	default:
		return 120
	}
}

// forceLayout is one layout problem: positions, masses and distinct
// edges; movable (nil: every node) says which nodes may move, so an
// incremental layout places new notes among the others without moving
// what the reader has seen.
type forceLayout struct {
	x, y    []float64
	mass    []float64
	edges   []int32
	weight  []float64 // per edge (a coarse level's merged links); nil: 1 each
	movable []bool

	fx, fy, px, py []float64 // this and the previous iteration's forces
	speed          float64
	tree           quadTree
}

func newForceLayout(x, y []float64, edges []int32, movable []bool) *forceLayout {
	n := len(x)
	l := &forceLayout{x: x, y: y, edges: edges, movable: movable, mass: make([]float64, n),
		fx: make([]float64, n), fy: make([]float64, n), px: make([]float64, n), py: make([]float64, n), speed: 1}
	for i := range l.mass {
		l.mass[i] = 1
	}
	for e := 0; e < len(edges); e += 2 {
		if edges[e] != edges[e+1] {
			l.mass[edges[e]]++
			l.mass[edges[e+1]]++
		}
	}
	return l
}

func (l *forceLayout) moves(i int) bool { return l.movable == nil || l.movable[i] }

// run iterates until iters are done or ctx ends; it reports whether it
// finished.
func (l *forceLayout) run(ctx context.Context, iters int) bool {
	for it := 0; it < iters; it++ {
		if it%8 == 0 && ctx.Err() != nil {
			return false
		}
		l.step()
	}
	return true
}

// step is one ForceAtlas2 iteration.
func (l *forceLayout) step() {
	n := len(l.x)
	if n == 0 {
		return
	}
	l.px, l.fx = l.fx, l.px
	l.py, l.fy = l.fy, l.py
	clear(l.fx)
	clear(l.fy)
	l.tree.build(l.x, l.y, l.mass)
	for i := 0; i < n; i++ {
		if !l.moves(i) {
			continue
		}
		fx, fy := l.tree.repulsion(i, l.x[i], l.y[i], l.mass[i])
		// Strong gravity: kg*m*d towards the origin.
		fx -= l.x[i] * layoutGravity * l.mass[i]
		fy -= l.y[i] * layoutGravity * l.mass[i]
		l.fx[i], l.fy[i] = fx, fy
	}
	for e := 0; e < len(l.edges); e += 2 {
		s, t := l.edges[e], l.edges[e+1]
		dx, dy := l.x[s]-l.x[t], l.y[s]-l.y[t]
		if l.weight != nil {
			w := l.weight[e/2]
			dx, dy = dx*w, dy*w
		}
		l.fx[s] -= dx
		l.fy[s] -= dy
		l.fx[t] += dx
		l.fy[t] += dy
	}
	// Adaptive speed: swinging is how much a node's force changed
	// direction since the last iteration, traction how much it kept.
	swing, traction := 0.0, 0.0
	for i := 0; i < n; i++ {
		if !l.moves(i) {
			continue
		}
		sw := math.Hypot(l.fx[i]-l.px[i], l.fy[i]-l.py[i])
		tr := math.Hypot(l.fx[i]+l.px[i], l.fy[i]+l.py[i]) / 2
		swing += l.mass[i] * sw
		traction += l.mass[i] * tr
	}
	jitter := math.Max(math.Sqrt(0.05*math.Sqrt(float64(n))), math.Min(10, 0.05*math.Sqrt(float64(n))))
	if swing > 0 {
		target := jitter * traction / swing
		if target > l.speed {
			target = math.Min(target, 1.5*l.speed) // rise slowly, fall at once
		}
		l.speed = target
	}
	for i := 0; i < n; i++ {
		if !l.moves(i) {
			continue
		}
		sw := l.mass[i] * math.Hypot(l.fx[i]-l.px[i], l.fy[i]-l.py[i])
		factor := l.speed / (1 + math.Sqrt(l.speed*sw))
		// A node's move is capped so that a start far from equilibrium
		// cannot fling it away.
		f := math.Hypot(l.fx[i], l.fy[i])
		if f*factor > 10 {
			factor = 10 / f
		}
		l.x[i] += l.fx[i] * factor
		l.y[i] += l.fy[i] * factor
	}
}

// quadTree is a Barnes-Hut tree over the positions, rebuilt every
// iteration into reused slices.
type quadTree struct {
	cells []cell
}

type cell struct {
	x0, y0, size float64 // the square
	cx, cy, mass float64 // centre of mass
	child        [4]int32
	body         int32 // the single body of a leaf; -1 for an internal or empty cell
}

func (t *quadTree) build(x, y, mass []float64) {
	t.cells = t.cells[:0]
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i := range x {
		minX, maxX = math.Min(minX, x[i]), math.Max(maxX, x[i])
		minY, maxY = math.Min(minY, y[i]), math.Max(maxY, y[i])
	}
	size := math.Max(maxX-minX, maxY-minY) + 1e-6
	t.cells = append(t.cells, cell{x0: minX, y0: minY, size: size, body: -1, child: [4]int32{-1, -1, -1, -1}})
	for i := range x {
		t.insert(0, int32(i), x, y, mass, 0)
	}
}

func (t *quadTree) insert(c int32, b int32, x, y, mass []float64, depth int) {
	for {
		cl := &t.cells[c]
		m := mass[b]
		total := cl.mass + m
		cl.cx = (cl.cx*cl.mass + x[b]*m) / total
		cl.cy = (cl.cy*cl.mass + y[b]*m) / total
		wasEmpty := cl.mass == 0
		cl.mass = total
		if wasEmpty {
			cl.body = b
			return
		}
		if depth >= maxTreeDepth { // coincident bodies: one aggregate leaf
			cl.body = -2
			return
		}
		if cl.body >= 0 { // a leaf becomes internal: push its body down
			old := cl.body
			cl.body = -1
			t.place(c, old, x, y, mass, depth)
		} else if cl.body == -2 {
			return
		}
		c = t.childFor(c, b, x, y)
		depth++
	}
}

// place puts body b into the right child of c (as a new leaf or deeper).
func (t *quadTree) place(c, b int32, x, y, mass []float64, depth int) {
	child := t.childFor(c, b, x, y)
	t.insert(child, b, x, y, mass, depth+1)
}

// childFor returns the child cell of c that holds b's position, creating
// it. It may grow t.cells: callers must not keep pointers across it.
func (t *quadTree) childFor(c, b int32, x, y []float64) int32 {
	cl := t.cells[c]
	half := cl.size / 2
	q := 0
	x0, y0 := cl.x0, cl.y0
	if x[b] >= cl.x0+half {
		q |= 1
		x0 += half
	}
	if y[b] >= cl.y0+half {
		q |= 2
		y0 += half
	}
	if cl.child[q] < 0 {
		t.cells = append(t.cells, cell{x0: x0, y0: y0, size: half, body: -1, child: [4]int32{-1, -1, -1, -1}})
		t.cells[c].child[q] = int32(len(t.cells) - 1)
	}
	return t.cells[c].child[q]
}

// repulsion is the ForceAtlas2 repulsion on body i at (x, y) of mass m
// from every other body: kr*m*m'/d along the line between them.
func (t *quadTree) repulsion(i int, x, y, m float64) (fx, fy float64) {
	var stack [256]int32
	sp := 0
	stack[sp] = 0
	sp++
	for sp > 0 {
		sp--
		cl := &t.cells[stack[sp]]
		if cl.mass == 0 || cl.body == int32(i) {
			continue
		}
		dx, dy := x-cl.cx, y-cl.cy
		d2 := dx*dx + dy*dy
		leaf := cl.body >= 0 || cl.body == -2
		if leaf || cl.size*cl.size < layoutTheta*layoutTheta*d2 {
			if d2 < 1e-9 { // on top of each other: a fixed nudge apart
				dx, dy, d2 = 0.01*float64(i%7+1), 0.01*float64(i%5+1), 1e-4
			}
			mm := cl.mass
			if cl.body == -2 && cl.cx == x && cl.cy == y {
				mm -= m // the aggregate holds i itself
			}
			f := layoutRepulsion * m * mm / d2
			fx += dx * f
			fy += dy * f
			continue
		}
		for _, ch := range cl.child {
			if ch >= 0 && sp < len(stack) {
				stack[sp] = ch
				sp++
			}
		}
	}
	return fx, fy
}

// jitter is a repeatable pseudo-random pair in [-1, 1) for an ID, so that
// the same vault is laid out the same way every time.
func jitter(id string) (float64, float64) {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	v := h.Sum64()
	return float64(v&0xffffffff)/float64(1<<31) - 1, float64(v>>32)/float64(1<<31) - 1
}

// seedPositions gives unplaced nodes a start: next to the placed nodes
// they link with (their centroid), else around their top folder's anchor,
// folders spread on a golden-angle spiral by size. Placed nodes keep
// theirs.
func seedPositions(s *snapshot) {
	n := len(s.nodes)
	if n == 0 {
		return
	}
	folderCount := make([]int, len(s.folders))
	for _, f := range s.folderOf {
		folderCount[f]++
	}
	spread := math.Sqrt(float64(n)) * 3 // extent of a laid-out vault, roughly
	anchorX := make([]float64, len(s.folders))
	anchorY := make([]float64, len(s.folders))
	for f := range s.folders { // biggest folders nearest the centre
		r := spread * math.Sqrt(float64(f)/float64(len(s.folders)))
		a := float64(f) * 2.399963 // golden angle
		anchorX[f], anchorY[f] = r*math.Cos(a), r*math.Sin(a)
	}
	adj := make([][]int32, n)
	for e := 0; e < len(s.edges); e += 2 {
		a, b := s.edges[e], s.edges[e+1]
		adj[a] = append(adj[a], b)
		adj[b] = append(adj[b], a)
	}
	var pending []int
	for i, nd := range s.nodes {
		if !nd.Placed {
			pending = append(pending, i)
		}
	}
	// Two passes: a new note linked only to other new notes finds them
	// placed in the second.
	for pass := 0; pass < 2 && len(pending) > 0; pass++ {
		var later []int
		for _, i := range pending {
			nd := s.nodes[i]
			jx, jy := jitter(nd.ID)
			sx, sy, k := 0.0, 0.0, 0
			for _, j := range adj[i] {
				if o := s.nodes[j]; o.Placed {
					sx, sy, k = sx+o.X, sy+o.Y, k+1
				}
			}
			switch {
			case k > 0:
				nd.X, nd.Y = sx/float64(k)+jx*3, sy/float64(k)+jy*3
			case pass == 0 && len(adj[i]) > 0:
				later = append(later, i)
				continue
			default:
				f := s.folderOf[i]
				r := math.Sqrt(float64(folderCount[f])) * 2
				nd.X, nd.Y = anchorX[f]+jx*r, anchorY[f]+jy*r
			}
			nd.Placed = true
		}
		pending = later
	}
}

// layoutPositions lays out x and y (seeded by the caller) along edges in
// place; false when ctx ended first. A position the iterations broke (not
// a number) goes back to its start. Above multilevelMin notes the layout
// is multilevel (see multilevel.go).
func layoutPositions(ctx context.Context, x, y []float64, edges []int32) bool {
	x0, y0 := slices.Clone(x), slices.Clone(y)
	edges = distinctUndirected(edges)
	var ok bool
	if len(x) > multilevelMin {
		ok = multilevelLayout(ctx, x, y, edges)
	} else {
		ok = newForceLayout(x, y, edges, nil).run(ctx, layoutIterations(len(x)))
	}
	if !ok {
		return false
	}
	for i := range x {
		if math.IsNaN(x[i]) || math.IsNaN(y[i]) || math.IsInf(x[i], 0) || math.IsInf(y[i], 0) {
			x[i], y[i] = x0[i], y0[i]
		}
	}
	return true
}

// distinctUndirected drops self-loops and keeps one of a->b and b->a: a
// pair of notes that link each other is pulled together once.
func distinctUndirected(edges []int32) []int32 {
	pairs := make([][2]int32, 0, len(edges)/2)
	for e := 0; e < len(edges); e += 2 {
		a, b := edges[e], edges[e+1]
		if a == b {
			continue
		}
		if a > b {
			a, b = b, a
		}
		pairs = append(pairs, [2]int32{a, b})
	}
	slices.SortFunc(pairs, func(p, q [2]int32) int {
		if p[0] != q[0] {
			return int(p[0] - q[0])
		}
		return int(p[1] - q[1])
	})
	pairs = slices.Compact(pairs)
	out := make([]int32, 0, 2*len(pairs))
	for _, p := range pairs {
		out = append(out, p[0], p[1])
	}
	return out
}

// relaxFresh places fresh notes among the others, which stay where they
// are: each fresh note starts at its linked notes' centroid (seeded by
// the caller) and moves under the same forces as in a full layout, the
// others' repulsion read from one tree built at the start. Its cost is a
// tree of every note plus the fresh notes' iterations, so an edit in a
// 100k-note vault is placed in milliseconds.
func relaxFresh(all []*node, fresh map[*node]bool, adj map[*node][]*node, iters int) {
	if len(fresh) == 0 {
		return
	}
	n := len(all)
	x, y, mass := make([]float64, n), make([]float64, n), make([]float64, n)
	index := make(map[*node]int, len(fresh))
	for i, nd := range all {
		x[i], y[i], mass[i] = nd.X, nd.Y, float64(1+len(nd.Out))
		if fresh[nd] {
			index[nd] = i
		}
	}
	var t quadTree
	t.build(x, y, mass)
	const step, maxMove = 0.05, 2.0
	for it := 0; it < iters; it++ {
		for nd := range fresh {
			i := index[nd]
			m := float64(1 + len(adj[nd]))
			fx, fy := t.repulsion(i, nd.X, nd.Y, m)
			fx -= nd.X * layoutGravity * m
			fy -= nd.Y * layoutGravity * m
			for _, o := range adj[nd] {
				fx -= nd.X - o.X
				fy -= nd.Y - o.Y
			}
			dx, dy := fx*step/m, fy*step/m
			if d := math.Hypot(dx, dy); d > maxMove {
				dx, dy = dx*maxMove/d, dy*maxMove/d
			}
			if !math.IsNaN(dx) && !math.IsNaN(dy) {
				nd.X += dx
				nd.Y += dy
			}
		}
	}
}

// seedFresh starts each fresh note at the centroid of its placed
// neighbours (jittered), else near a note of its top folder, else at the
// origin's surroundings.
func seedFresh(all []*node, fresh map[*node]bool, adj map[*node][]*node) {
	folderAt := map[string]*node{}
	for _, nd := range all {
		if !fresh[nd] && nd.Placed {
			if _, ok := folderAt[topFolder(nd.Path)]; !ok {
				folderAt[topFolder(nd.Path)] = nd
			}
		}
	}
	for pass := 0; pass < 2; pass++ {
		for nd := range fresh {
			if nd.Placed {
				continue
			}
			jx, jy := jitter(nd.ID)
			sx, sy, k := 0.0, 0.0, 0
			for _, o := range adj[nd] {
				if o.Placed {
					sx, sy, k = sx+o.X, sy+o.Y, k+1
				}
			}
			switch {
			case k > 0:
				nd.X, nd.Y = sx/float64(k)+jx*3, sy/float64(k)+jy*3
			case pass == 0 && len(adj[nd]) > 0:
				continue // its neighbours may be placed in this pass
			case folderAt[topFolder(nd.Path)] != nil:
				f := folderAt[topFolder(nd.Path)]
				nd.X, nd.Y = f.X+jx*10, f.Y+jy*10
			default:
				nd.X, nd.Y = jx*10, jy*10
			}
			nd.Placed = true
		}
	}
}
